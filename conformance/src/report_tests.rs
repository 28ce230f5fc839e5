use super::*;

fn report(checks: Vec<Check>) -> Report {
    Report {
        component: Component {
            path: "p.wasm".into(),
            sha256: "ab".repeat(32),
            wit: Some("skillhost:provider@0.1.0".to_string()),
        },
        checks,
    }
}

#[test]
fn counts_follow_the_statuses() {
    let r = report(vec![
        Check::pass("a", "fine"),
        Check::fail("b", "broken"),
        Check::skip("c", "n/a"),
    ]);
    assert_eq!((r.passed(), r.failed(), r.skipped()), (1, 1, 1));
    assert!(!r.is_passed());
    let json = r.json();
    assert_eq!(json["failed"], 1);
    assert_eq!(json["checks"][1]["status"], "fail");
    assert_eq!(json["component"]["wit"], "skillhost:provider@0.1.0");
}

#[test]
fn assert_passed_lists_every_failure() {
    let r = report(vec![
        Check::fail("init", "init refused"),
        Check::pass("load", "ok"),
        Check::fail("delta", "gamma is still listed"),
    ]);
    let panic = std::panic::catch_unwind(|| r.assert_passed()).unwrap_err();
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.contains("init: init refused"), "{message}");
    assert!(
        message.contains("delta: gamma is still listed"),
        "{message}"
    );
    assert!(!message.contains("load"), "{message}");
    report(vec![Check::skip("x", "n/a")]).assert_passed();
}

#[test]
fn junit_escapes_what_a_provider_said() {
    let r = report(vec![Check::fail("boundary", "name \"<a&b>\"\u{1b}[31m")]);
    let xml = r.junit();
    assert!(
        xml.contains("&quot;&lt;a&amp;b&gt;&quot;\u{FFFD}[31m"),
        "{xml}"
    );
    assert!(xml.contains("failures=\"1\""), "{xml}");
    assert!(!xml.contains('\u{1b}'));
}

#[test]
fn problems_are_listed_up_to_a_limit_and_counted_beyond() {
    let problems: Vec<String> = (0..12).map(|i| format!("p{i}")).collect();
    let text = summarise(&problems);
    assert!(text.starts_with("p0; p1"), "{text}");
    assert!(text.ends_with("and 4 more"), "{text}");
    assert_eq!(Check::from_problems("x", &[], "ok").status, Status::Pass);
}
