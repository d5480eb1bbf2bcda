//! Prints the core pipeline's figures (`./build.sh bench`): a report from a 10 MB
//! traceback (target ≤ 20 ms native), masking throughput (target ≥ 50 MB/s), and the
//! tool-call parser on a long message, and reading a content script's report of it. Run with
//! `--release`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use mcp_bridge_core::domain::messages::{Origin, parse_incoming};
use mcp_bridge_core::domain::outcome::{CallOutcome, from_http};
use mcp_bridge_core::domain::redact::redact;
use mcp_bridge_core::domain::report::{ReportOptions, render};
use mcp_bridge_core::domain::toolcall::find_last_call;
use serde_json::json;

/// Best of `runs` timings (less noise from the other jobs on the machine).
fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            black_box(f());
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn traceback(bytes: usize) -> String {
    let mut tb = String::with_capacity(bytes + 256);
    tb.push_str("Traceback (most recent call last):\n");
    let mut i = 0;
    while tb.len() < bytes {
        tb.push_str(&format!(
            "  File \"/home/alice/srv/app/module_{i}.py\", line {i}, in handler_{i}\n    result = handler_{}(payload, timeout=30)\n",
            i + 1
        ));
        i += 1;
    }
    tb.push_str("ValueError: Invalid date format: 2025-13-45");
    tb
}

/// Log-like text with a secret every ~4 KB.
fn mixed_text(bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + 512);
    let mut i = 0;
    while s.len() < bytes {
        s.push_str("2025-10-25 10:30:15 INFO request handled in 12 ms path=/api/v1/items?page=3 user agent Mozilla/5.0 (X11; Linux x86_64)\n");
        s.push_str("  File \"/srv/app/worker.py\", line 88, in run: connection to db.example.com:5432 ok, 127.0.0.1:3849 ok\n");
        if i % 16 == 0 {
            s.push_str("  retrying with Authorization: Bearer abcdef0123456789abcdef password=hunter2 at 10.0.3.7\n");
        }
        i += 1;
    }
    s
}

fn main() {
    let opts = ReportOptions::default();
    let tb = traceback(10 << 20);
    println!("core pipeline benchmark (best of several runs, release build)");

    // 1. Report from a 10 MB traceback.
    let outcome = CallOutcome::HttpError {
        status: 500,
        detail: mcp_bridge_core::domain::outcome::ErrorDetail::Object {
            error: mcp_bridge_core::domain::outcome::ErrorFields {
                message: "Invalid date format: 2025-13-45".into(),
                error_type: Some("ValueError".into()),
                traceback: Some(tb.clone()),
                ..Default::default()
            },
        },
        trace_id: None,
    };
    let args = json!({"date": "2025-13-45"});
    let d = best(15, || render("get_tickets", &args, &outcome, &opts));
    println!(
        "report from a {:.1} MB traceback (decoded outcome → chat text, float, record): {:.2} ms  (target ≤ 20 ms)",
        tb.len() as f64 / 1048576.0,
        ms(d)
    );
    let body = json!({"detail": {"error": "Invalid date format: 2025-13-45", "type": "ValueError", "traceback": tb}}).to_string();
    let d = best(10, || {
        let o = from_http(500, None, body.as_bytes());
        render("get_tickets", &args, &o, &opts)
    });
    println!(
        "same, from the raw {:.1} MB HTTP body (JSON decode included):            {:.2} ms",
        body.len() as f64 / 1048576.0,
        ms(d)
    );

    // 2. Masking throughput.
    for (name, text) in [
        ("log text with secrets", mixed_text(16 << 20)),
        ("traceback text", traceback(16 << 20)),
        (
            "clean ASCII prose",
            "the quick brown fox jumps over the lazy dog, again and again; "
                .repeat((16 << 20) / 62),
        ),
    ] {
        let d = best(5, || redact(&text).len());
        let mbps = text.len() as f64 / 1048576.0 / d.as_secs_f64();
        println!(
            "masking, {name:<22} {:>6.1} MB in {:>7.2} ms = {mbps:>7.1} MB/s  (target ≥ 50 MB/s)",
            text.len() as f64 / 1048576.0,
            ms(d)
        );
    }

    // 2b. Inputs that would make a backtracking matcher quadratic: the slowest one.
    let unit = 200_000;
    let adversarial = [
        "-----BEGIN ".repeat(unit / 10),
        "://a:b".repeat(unit / 4),
        "eyJaaaaaaaaaaaa.".repeat(unit / 10),
        "password=".repeat(unit / 8),
        "Bearer ".repeat(unit / 6),
        "/home/".repeat(unit / 5),
        "10.10.10.".repeat(unit / 8),
        "fd00:".repeat(unit / 4),
        "sk-".repeat(unit / 2),
    ];
    let (slowest, worst) = adversarial
        .iter()
        .map(|text| (text, best(3, || redact(text).len())))
        .max_by_key(|(_, d)| *d)
        .expect("inputs");
    println!(
        "masking, adversarial input (slowest of {}: {:?}…) {:.2} MB in {:.2} ms = {:.1} MB/s",
        adversarial.len(),
        &slowest[..12],
        slowest.len() as f64 / 1048576.0,
        ms(worst),
        slowest.len() as f64 / 1048576.0 / worst.as_secs_f64()
    );

    // 3. Tool-call parser on a long assistant message.
    let mut msg = "Here is a long answer. ".repeat(40_000);
    msg.push_str("\n<tool_code>\n{\"tool_name\": \"get_current_time\", \"arguments\": {\"timezone\": \"Asia/Shanghai\"}}\n</tool_code>");
    let d = best(20, || find_last_call(&msg));
    println!(
        "tool-call parser on a {:.1} MB message: {:.3} ms",
        msg.len() as f64 / 1048576.0,
        ms(d)
    );

    // 4. Reading a content script's report of that message: the contract's tagged shape is
    // read through a JSON value and back (no serde `Content`); the ratio is to one plain parse.
    let report = json!({"type": "message-updated", "url": "https://chat.deepseek.com/a/1",
        "index": 3, "text": msg, "generating": false})
    .to_string();
    let read = best(20, || {
        parse_incoming(&report, Origin::ContentScript).is_ok()
    });
    let plain = best(20, || {
        serde_json::from_str::<serde_json::Value>(&report).is_ok()
    });
    println!(
        "reading a {:.1} MB message-updated report: {:.3} ms ({:.1}× one plain JSON parse)",
        report.len() as f64 / 1048576.0,
        ms(read),
        read.as_secs_f64() / plain.as_secs_f64()
    );
}
