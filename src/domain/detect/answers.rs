//! The answers: the list above the chat input that holds the conversation, and which of its
//! entries are the AI's. An entry that holds the text the user sent is the user's; one
//! whose attributes speak of an assistant (or a user) says so; the AI's entries are then
//! described by what all of them share and no entry of the user's has ([`Signature`]), so
//! the content script finds the newest answer again with a look at the list's last
//! children instead of a search of the page. Where each entry of the list is a turn holding
//! both the user's message and the answer, the path goes one level deeper. Where nothing in
//! the markup tells the sides apart, what the user did does: an entry holding a text sent from
//! this page is the user's, and the answers are the entries that hold none
//! ([`Signature::unsent`]).

use super::{Candidate, Rect};
use serde::{Deserialize, Serialize};

/// What an answer looks like: its tag, its role, the tokens (`.class`, `@name=value`,
/// `@name`) every answer has, and those no answer has that the user's entries have.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Signature {
    pub tag: String,
    pub role: Option<String>,
    pub has: Vec<String>,
    pub not: Vec<String>,
    /// Only entries that hold none of the texts sent from this page (the content script keeps
    /// them): the sides look alike, and only what the user sent tells them apart.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unsent: bool,
}

impl Signature {
    pub fn matches(&self, c: &Candidate) -> bool {
        let tokens = &c.tokens;
        c.tag == self.tag
            && c.role == self.role
            && self.has.iter().all(|t| tokens.contains(t))
            && !self.not.iter().any(|t| tokens.contains(t))
            && !(self.unsent && c.has_sent)
    }
}

/// From the list to an answer: the signature of the list's entries that are (or hold) the
/// answers, then, for turns that hold both sides, the answer's signature inside a turn.
pub type AnswerPath = Vec<Signature>;

/// Words in an entry's attributes that say whose it is.
const AI_WORDS: &[&str] = &[
    "assistant",
    "bot",
    "model",
    "answer",
    "response",
    "reply",
    "markdown",
    "ai-",
    "-ai",
    "gpt",
];
const USER_WORDS: &[&str] = &[
    "user", "human", "query", "question", "prompt", "self", "mine",
];

/// The list holding the conversation: the one with the most text among those above the
/// input and overlapping its column.
pub fn choose_list(input: &Rect, lists: &[Candidate]) -> Option<usize> {
    lists
        .iter()
        .enumerate()
        .filter(|(_, l)| l.text_len > 0 && !l.kids.is_empty())
        .filter(|(_, l)| l.rect.overlap_x(input) > 0.0 && l.rect.y() < input.bottom())
        .max_by_key(|(_, l)| l.text_len)
        .map(|(i, _)| i)
}

/// The path to an answer among a list's last entries, or `None` when the answers cannot be
/// told from the user's messages (yet: a list holding only the user's message).
pub fn choose_path(kids: &[Candidate]) -> Option<AnswerPath> {
    let kids: Vec<&Candidate> = kids.iter().filter(|k| k.text_len > 0).collect();
    if let Some(sig) = separate(&kids) {
        return Some(vec![sig]);
    }
    // Entries that look alike on both sides (a turn holding both, or a container per
    // message): the entries are described by what they share, then the answer inside one.
    let like: Vec<&Candidate> = match kids.iter().rev().find(|k| k.has_sent) {
        Some(sent) => kids
            .iter()
            .copied()
            .filter(|k| k.tag == sent.tag && k.role == sent.role)
            .collect(),
        None => kids.clone(),
    };
    if like.is_empty() {
        return None;
    }
    let outer = common(&like);
    let inner: Vec<&Candidate> = like
        .iter()
        .flat_map(|t| t.kids.iter())
        .filter(|g| g.text_len > 0)
        .collect();
    if let Some(sig) = separate(&inner) {
        return Some(vec![outer, sig]);
    }
    by_sent(&kids).map(|sig| vec![sig])
}

/// The answers of a list whose entries look alike on both sides: after the entry holding what
/// the user sent last, the entries that follow are the answer; what they share describes the
/// answers, and holding a sent text tells the user's entries apart.
fn by_sent(kids: &[&Candidate]) -> Option<Signature> {
    let last_sent = kids.iter().rposition(|k| k.has_sent)?;
    let after = &kids[last_sent + 1..];
    if after.is_empty() {
        return None;
    }
    let mut sig = common(after);
    sig.unsent = true;
    Some(sig)
}

/// Whose an entry is, as far as it says.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Side {
    User,
    Ai,
    Unknown,
}

fn side(k: &Candidate) -> Side {
    if k.has_sent {
        return Side::User;
    }
    let words = k.tokens.join(" ").to_ascii_lowercase();
    let says = |list: &[&str]| list.iter().any(|w| words.contains(w));
    match (says(AI_WORDS), says(USER_WORDS)) {
        (true, false) => Side::Ai,
        (false, true) => Side::User,
        _ => Side::Unknown,
    }
}

/// The signature of the AI's entries among `kids`, when their sides can be told and it
/// matches every AI entry and no user entry. An entry after the last one the user sent,
/// saying nothing itself, is the answer to it.
fn separate(kids: &[&Candidate]) -> Option<Signature> {
    let mut sides: Vec<Side> = kids.iter().map(|k| side(k)).collect();
    if let Some(last_sent) = kids.iter().rposition(|k| k.has_sent) {
        for s in sides.iter_mut().skip(last_sent + 1) {
            if *s == Side::Unknown {
                *s = Side::Ai;
            }
        }
    }
    let (ai, user) = (pick(kids, &sides, Side::Ai), pick(kids, &sides, Side::User));
    if ai.is_empty() || user.is_empty() {
        return None;
    }
    // The entries that say nothing themselves take the side whose distinctive tokens they
    // carry more of (an older answer, before the message the user sent last).
    let (ai_has, user_has) = (common(&ai).has, common(&user).has);
    let only = |a: &[String], b: &[String]| -> Vec<String> {
        a.iter().filter(|t| !b.contains(t)).cloned().collect()
    };
    let (d_ai, d_user) = (only(&ai_has, &user_has), only(&user_has, &ai_has));
    let share = |k: &Candidate, d: &[String]| {
        let n = d.iter().filter(|x| k.tokens.contains(x)).count();
        if d.is_empty() {
            0.0
        } else {
            n as f64 / d.len() as f64
        }
    };
    for (k, s) in kids.iter().zip(sides.iter_mut()) {
        if *s == Side::Unknown {
            let (a, u) = (share(k, &d_ai), share(k, &d_user));
            if a > u && k.tag == ai[0].tag {
                *s = Side::Ai;
            } else if u > a {
                *s = Side::User;
            }
        }
    }
    let (ai, user) = (pick(kids, &sides, Side::Ai), pick(kids, &sides, Side::User));
    let mut sig = common(&ai);
    if user.iter().any(|u| sig.matches(u)) {
        // What every user entry has and no answer has.
        let user_sig = common(&user);
        sig.not = user_sig
            .has
            .into_iter()
            .filter(|t| !ai.iter().any(|a| a.tokens.contains(t)))
            .collect();
    }
    let ok = ai.iter().all(|a| sig.matches(a)) && !user.iter().any(|u| sig.matches(u));
    ok.then_some(sig)
}

/// The entries of one side.
fn pick<'a>(kids: &[&'a Candidate], sides: &[Side], want: Side) -> Vec<&'a Candidate> {
    kids.iter()
        .zip(sides)
        .filter(|(_, s)| **s == want)
        .map(|(k, _)| *k)
        .collect()
}

/// What all of `entries` share: the first one's tag and role, and the tokens all have.
fn common(entries: &[&Candidate]) -> Signature {
    let first = entries[0];
    let mut has = first.tokens.clone();
    for e in &entries[1..] {
        has.retain(|t| e.tokens.contains(t));
    }
    Signature {
        tag: first.tag.clone(),
        role: first.role.clone(),
        has,
        not: Vec::new(),
        unsent: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(tag: &str, classes: &[&str], text_len: u32) -> Candidate {
        Candidate {
            tag: tag.into(),
            tokens: classes.iter().map(|c| format!(".{c}")).collect(),
            text_len,
            visible: true,
            rect: Rect(300.0, 100.0, 700.0, 60.0),
            ..Candidate::default()
        }
    }

    #[test]
    fn the_list_with_the_most_text_above_the_input_is_the_conversation() {
        let input = Rect(300.0, 800.0, 700.0, 40.0);
        let mut side_bar = entry("nav", &[], 5000);
        side_bar.rect = Rect(0.0, 0.0, 250.0, 900.0);
        side_bar.kids = vec![entry("a", &[], 20)];
        let mut chat = entry("div", &[], 900);
        chat.kids = vec![entry("div", &[], 20)];
        let mut below = entry("footer", &[], 3000);
        below.rect = Rect(300.0, 860.0, 700.0, 40.0);
        below.kids = vec![entry("p", &[], 20)];
        assert_eq!(choose_list(&input, &[side_bar, chat, below]), Some(1));
    }

    #[test]
    fn answers_are_what_follows_the_sent_message_and_share_its_markup() {
        // Renamed classes with no meaning: only the sent text tells the sides apart.
        let mut user = entry("div", &["k3x", "q9"], 40);
        user.has_sent = true;
        let old_user = entry("div", &["k3x", "q9"], 30);
        let answer = entry("div", &["k3x", "z1"], 400);
        let streaming = entry("div", &["k3x", "z1", "live"], 200);
        let kids = [old_user.clone(), answer.clone(), user, streaming.clone()];
        let path = choose_path(&kids).expect("found");
        assert_eq!(path.len(), 1);
        assert!(path[0].matches(&answer) && path[0].matches(&streaming));
        assert!(!path[0].matches(&old_user));
    }

    #[test]
    fn a_subset_of_the_users_classes_is_told_apart_by_what_users_have() {
        // Answers `.msg`, the user's `.msg.mine`: `.msg` alone would match both.
        let mut user = entry("div", &["msg", "mine"], 40);
        user.has_sent = true;
        let answer = entry("div", &["msg"], 400);
        let path = choose_path(&[
            entry("div", &["msg", "mine"], 9),
            answer.clone(),
            user,
            answer.clone(),
        ])
        .unwrap();
        assert_eq!(path[0].not, vec![".mine".to_string()]);
        assert!(path[0].matches(&answer));
    }

    #[test]
    fn attributes_that_say_assistant_find_answers_on_a_page_loaded_with_history() {
        let mut user = entry("section", &[], 40);
        user.tokens = vec!["@data-author=user".into(), "@data-mid".into()];
        let mut answer = entry("section", &[], 400);
        answer.tokens = vec!["@data-author=assistant".into(), "@data-mid".into()];
        let path =
            choose_path(&[user.clone(), answer.clone(), user.clone(), answer.clone()]).unwrap();
        assert_eq!(path[0].has, vec!["@data-author=assistant", "@data-mid"]);
        assert!(!path[0].matches(&user));
    }

    #[test]
    fn turns_holding_both_sides_lead_one_level_down() {
        let mut q = entry("div", &["qq"], 40);
        q.has_sent = true;
        let a = entry("div", &["aa"], 400);
        let mut turn = entry("div", &["turn"], 440);
        turn.kids = vec![q.clone(), a.clone()];
        turn.has_sent = true;
        let mut old = entry("div", &["turn"], 300);
        let mut old_q = q.clone();
        old_q.has_sent = false;
        old.kids = vec![old_q, a.clone()];
        let path = choose_path(&[old, turn]).unwrap();
        assert_eq!(path.len(), 2);
        assert_eq!(path[0].has, vec![".turn"]);
        assert!(path[1].matches(&a) && !path[1].matches(&q));
    }

    #[test]
    fn a_container_per_message_alike_on_both_sides_leads_one_level_down() {
        let mut q = entry("x-query", &[], 40);
        q.has_sent = true;
        let a = entry("x-answer", &["md"], 400);
        let holder = |inner: &Candidate| {
            let mut c = entry("div", &["box"], inner.text_len);
            c.has_sent = inner.has_sent;
            c.kids = vec![inner.clone()];
            c
        };
        let mut old_q = q.clone();
        old_q.has_sent = false;
        let kids = [holder(&old_q), holder(&a), holder(&q), holder(&a)];
        let path = choose_path(&kids).unwrap();
        assert_eq!(path.len(), 2);
        assert!(path[1].matches(&a) && !path[1].matches(&q));
    }

    #[test]
    fn nothing_is_claimed_when_the_sides_cannot_be_told() {
        // Only the user's own message so far.
        let mut user = entry("div", &["m"], 40);
        user.has_sent = true;
        assert_eq!(choose_path(&[user.clone()]), None);
        // History alone, identical markup on both sides: nothing tells the sides apart.
        let answer = entry("div", &["m"], 400);
        let mut old_user = user.clone();
        old_user.has_sent = false;
        assert_eq!(choose_path(&[old_user, answer.clone()]), None);
        assert_eq!(choose_path(&[]), None);
    }

    #[test]
    fn alike_on_both_sides_the_answers_are_the_entries_holding_nothing_sent() {
        // Bare elements of one kind on both sides: the entry after the one holding what the
        // user sent is the answer, and holding a sent text marks the user's.
        let mut user = entry("div", &[], 40);
        user.has_sent = true;
        let answer = entry("div", &[], 400);
        let path = choose_path(&[
            entry("div", &[], 30),
            entry("div", &[], 300),
            user.clone(),
            answer.clone(),
        ])
        .expect("found by what was sent");
        assert_eq!(path.len(), 1);
        assert!(path[0].unsent);
        assert!(path[0].matches(&answer));
        assert!(!path[0].matches(&user));
        // Markup only the answers have still tells them apart first.
        let mut a2 = entry("section", &["x"], 400);
        a2.tokens.push("@dir=ltr".into());
        let mut u2 = entry("section", &["x"], 40);
        u2.has_sent = true;
        let path = choose_path(&[u2.clone(), a2.clone()]).unwrap();
        assert_eq!(path[0].has, vec![".x", "@dir=ltr"]);
        assert!(path[0].matches(&a2) && !path[0].matches(&u2));
    }
}
