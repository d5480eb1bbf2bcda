//! The words a chat page's controls carry in their `aria-label`, `title` or text, per
//! language, as data: what a send control says, what a stop control says, and what the
//! other controls next to a chat input say (attach, voice, search) so they are never taken
//! for the send control. Lower case; matched as a substring of the lower-cased label.

/// One language's words.
pub struct Words {
    pub lang: &'static str,
    pub send: &'static [&'static str],
    pub stop: &'static [&'static str],
    pub other: &'static [&'static str],
}

/// English, Chinese, Japanese, Korean, French, German, Spanish.
pub const WORDS: &[Words] = &[
    Words {
        lang: "en",
        send: &["send", "submit"],
        stop: &["stop", "cancel generat", "abort"],
        other: &[
            "attach",
            "upload",
            "file",
            "image",
            "voice",
            "dictat",
            "microphone",
            "search",
            "record",
            "audio",
            "tools",
            "model",
        ],
    },
    Words {
        lang: "zh",
        send: &["发送", "提交", "發送"],
        stop: &["停止", "终止", "中止", "停止生成"],
        other: &[
            "上传",
            "附件",
            "文件",
            "图片",
            "语音",
            "录音",
            "搜索",
            "联网",
            "深度思考",
            "添加",
            "更多",
        ],
    },
    Words {
        lang: "ja",
        send: &["送信", "送る"],
        stop: &["停止", "中止", "止める"],
        other: &[
            "添付",
            "アップロード",
            "ファイル",
            "画像",
            "音声",
            "検索",
            "追加",
        ],
    },
    Words {
        lang: "ko",
        send: &["전송", "보내기", "제출"],
        stop: &["중지", "정지", "멈추"],
        other: &["첨부", "업로드", "파일", "이미지", "음성", "검색", "추가"],
    },
    Words {
        lang: "fr",
        send: &["envoyer", "soumettre"],
        stop: &["arrêter", "arreter", "interrompre"],
        other: &[
            "joindre",
            "pièce jointe",
            "téléverser",
            "fichier",
            "vocal",
            "dicter",
            "recherche",
            "ajouter",
        ],
    },
    Words {
        lang: "de",
        send: &["senden", "absenden", "abschicken"],
        stop: &["stopp", "anhalten", "abbrechen"],
        other: &[
            "anhängen",
            "hochladen",
            "datei",
            "bild",
            "sprach",
            "diktier",
            "suche",
            "hinzufügen",
        ],
    },
    Words {
        lang: "es",
        send: &["enviar", "mandar"],
        stop: &["detener", "parar"],
        other: &[
            "adjuntar", "subir", "archivo", "imagen", "voz", "dictar", "buscar", "añadir",
            "agregar",
        ],
    },
];

/// What a control's label says, by the word lists of every language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Says {
    Send,
    Stop,
    Other,
    Nothing,
}

/// Reads a label (already lower-cased). A stop word wins over a send word ("Stop sending"),
/// and a send word over the other controls' words ("Send file" is still a send control
/// only when nothing better is there, so it counts as send).
pub fn says(label: &str) -> Says {
    let any = |pick: fn(&Words) -> &'static [&'static str]| {
        WORDS
            .iter()
            .any(|w| pick(w).iter().any(|word| label.contains(word)))
    };
    if label.trim().is_empty() {
        Says::Nothing
    } else if any(|w| w.stop) {
        Says::Stop
    } else if any(|w| w.send) {
        Says::Send
    } else if any(|w| w.other) {
        Says::Other
    } else {
        Says::Nothing
    }
}

/// Every stop word of every language (the content script checks the composer's controls
/// against them while the answer streams).
pub fn stop_words() -> Vec<&'static str> {
    WORDS.iter().flat_map(|w| w.stop.iter().copied()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_has_send_and_stop_words() {
        let langs: Vec<_> = WORDS.iter().map(|w| w.lang).collect();
        assert_eq!(langs, ["en", "zh", "ja", "ko", "fr", "de", "es"]);
        for w in WORDS {
            assert!(!w.send.is_empty() && !w.stop.is_empty(), "{}", w.lang);
            for word in w.send.iter().chain(w.stop).chain(w.other) {
                assert_eq!(*word, word.to_lowercase(), "{}: {word}", w.lang);
            }
        }
    }

    #[test]
    fn labels_read_in_each_language() {
        for (label, want) in [
            ("send prompt", Says::Send),
            ("发送消息", Says::Send),
            ("メッセージを送信", Says::Send),
            ("메시지 보내기", Says::Send),
            ("envoyer le message", Says::Send),
            ("nachricht senden", Says::Send),
            ("enviar mensaje", Says::Send),
            ("stop streaming", Says::Stop),
            ("停止生成", Says::Stop),
            ("antwort abbrechen", Says::Stop),
            ("attach files", Says::Other),
            ("语音输入", Says::Other),
            ("atomic", Says::Nothing),
            ("add a comment", Says::Nothing),
            ("", Says::Nothing),
        ] {
            assert_eq!(says(label), want, "{label}");
        }
    }
}
