//! Pattern detection on fixtures whose answer is known.

use super::*;

/// A session: `parts` joined by tools seen nowhere else, so windows
/// across two parts never recur.
fn session(id: &str, parts: &[&[&str]]) -> Session {
    let mut tools = vec![format!("noise_{id}_start")];
    for (i, part) in parts.iter().enumerate() {
        tools.extend(part.iter().map(|t| t.to_string()));
        tools.push(format!("noise_{id}_{i}"));
    }
    Session {
        id: id.to_string(),
        tools,
    }
}

const P: &[&str] = &["search_papers", "download_paper", "rag_search"];
const P_PLUS: &[&str] = &["search_papers", "download_paper", "rag_search", "summarize"];
const Q: &[&str] = &["read_file", "edit_file", "run_tests"];
const Q_REVERSED: &[&str] = &["run_tests", "edit_file", "read_file"];

fn fixture() -> Vec<Session> {
    let mut sessions = Vec::new();
    // P+ (a superset of P) in three sessions, P alone in two more; a pair
    // in only two sessions.
    for id in ["s1", "s2"] {
        sessions.push(session(id, &[P_PLUS, &["lint", "format"][..]]));
    }
    sessions.push(session("s3", &[P_PLUS]));
    sessions.push(session("s4", &[P, Q]));
    sessions.push(session("s5", &[P, Q]));
    // Q in six sessions; its near-duplicate (same tools, reversed) in three.
    for id in ["s6", "s7", "s8", "s9"] {
        sessions.push(session(id, &[Q]));
    }
    for id in ["s10", "s11", "s12"] {
        sessions.push(session(id, &[Q_REVERSED]));
    }
    // Repeated ten times, but in only two sessions.
    let many: Vec<&[&str]> = std::iter::repeat_n(&["ping", "pong"][..], 10).collect();
    sessions.push(session("s13", &many));
    sessions.push(session("s14", &[&["ping", "pong"]]));
    // One session recorded twice counts once.
    sessions.push(session("s15", &[&["alpha", "beta"]]));
    sessions.push(session("s15", &[&["alpha", "beta"]]));
    sessions.push(session("s16", &[&["alpha", "beta"]]));
    sessions
}

fn tools(pattern: &Pattern) -> Vec<&str> {
    pattern.tools.iter().map(String::as_str).collect()
}

#[test]
fn the_fixture_yields_exactly_the_two_known_patterns() {
    let found = detect(&fixture(), &Options::default());
    let summary: Vec<(Vec<&str>, usize)> = found.iter().map(|p| (tools(p), p.frequency)).collect();
    assert_eq!(summary, [(Q.to_vec(), 6), (P.to_vec(), 5)], "{found:#?}");
    assert_eq!(found[1].sessions, ["s1", "s2", "s3", "s4", "s5"]);
    assert_eq!(found[0].sessions, ["s4", "s5", "s6", "s7", "s8", "s9"]);
    for pattern in &found {
        assert_eq!(pattern.similarity, 0.0);
        assert_eq!(pattern.confidence, 1.0, "ln(f)/ln(3) ≥ 1, clamped");
    }
}

#[test]
fn a_superset_in_as_many_sessions_replaces_its_parts() {
    // P+ alone in three sessions: P and every shorter window are inside it
    // in the same sessions, so only P+ is left.
    let sessions: Vec<Session> = ["a", "b", "c"]
        .iter()
        .map(|id| session(id, &[P_PLUS]))
        .collect();
    let found = detect(&sessions, &Options::default());
    let all: Vec<Vec<&str>> = found.iter().map(tools).collect();
    assert_eq!(all, [P_PLUS.to_vec()]);
}

#[test]
fn the_more_frequent_of_two_near_duplicates_is_kept() {
    let found = detect(&fixture(), &Options::default());
    assert!(
        !found
            .iter()
            .any(|p| tools(p) == Q_REVERSED || tools(p) == P_PLUS),
        "{found:#?}"
    );
    // Without the Jaccard rule both come back, penalised for their likeness.
    let loose = Options {
        near_duplicate: 1.1,
        ..Options::default()
    };
    let found = detect(&fixture(), &loose);
    let reversed = found.iter().find(|p| tools(p) == Q_REVERSED).unwrap();
    assert_eq!((reversed.frequency, reversed.similarity), (3, 1.0));
    assert_eq!(reversed.confidence, 0.0);
}

#[test]
fn confidence_is_frequency_over_ln_3_times_dissimilarity() {
    // fetch+parse and fetch+save+notify share one tool of four: 0.25.
    let mut sessions = Vec::new();
    for id in ["a", "b", "c"] {
        sessions.push(session(id, &[&["fetch_url", "parse_html"]]));
    }
    for id in ["d", "e", "f"] {
        sessions.push(session(id, &[&["fetch_url", "save_file", "notify_user"]]));
    }
    let found = detect(&sessions, &Options::default());
    assert_eq!(found.len(), 2, "{found:#?}");
    for pattern in &found {
        assert_eq!(pattern.similarity, 0.25);
        assert!((pattern.confidence - 0.75).abs() < 1e-12);
    }
    assert_eq!(tools(&found[0]), ["fetch_url", "save_file", "notify_user"]);
    assert!((confidence(9, 0.5) - 1.0).abs() < 1e-12);
    assert!((confidence(3, 0.2) - 0.8).abs() < 1e-12);
    assert_eq!(confidence(2, 0.0), 2f64.ln() / 3f64.ln());
    assert_eq!(confidence(1, 0.0), 0.0);
    assert_eq!(confidence(0, 0.0), 0.0);
}

#[test]
fn the_result_does_not_depend_on_session_order() {
    let mut sessions = fixture();
    let forward = detect(&sessions, &Options::default());
    sessions.reverse();
    assert_eq!(detect(&sessions, &Options::default()), forward);
    assert_eq!(
        forward[0].fingerprint,
        skillhost_skill::digest::sha256(b"read_file\nedit_file\nrun_tests")
    );
}

#[test]
fn windows_stop_at_eight_calls() {
    let long: Vec<String> = (0..12).map(|i| format!("step_{i}")).collect();
    let sessions: Vec<Session> = ["a", "b", "c"]
        .iter()
        .map(|id| Session {
            id: id.to_string(),
            tools: long.clone(),
        })
        .collect();
    let found = detect(&sessions, &Options::default());
    assert!(found.iter().all(|p| p.tools.len() <= 8));
    assert!(found.iter().any(|p| p.tools.len() == 8));
}

#[test]
fn jaccard_compares_sets_of_tools() {
    assert_eq!(jaccard(&["a", "b"], &["b", "a", "a"]), 1.0);
    assert_eq!(jaccard(&["a", "b", "c"], &["a", "b", "c", "d"]), 0.75);
    assert_eq!(jaccard(&["a"], &["b"]), 0.0);
    assert_eq!(jaccard(&[] as &[&str], &[] as &[&str]), 0.0);
}

#[test]
fn names_are_kebab_case_first_words() {
    assert_eq!(skill_name(P), "search-download-rag");
    assert_eq!(skill_name(&["WebFetch", "Read", "Bash"]), "web-read-bash");
    assert_eq!(
        skill_name(&["mcp__github__create_issue", "mcp__slack__post_message"]),
        "create-post"
    );
    assert_eq!(skill_name(&["搜索", "--x--"]), "step-x");
    assert_eq!(skill_name(&[] as &[&str]), "pattern");
    let long: Vec<String> = (0..8).map(|i| format!("{}{i}", "w".repeat(20))).collect();
    let name = skill_name(&long);
    assert!(name.len() <= 64, "{name}");
    assert!(skillhost_skill::names::check_name(&name).is_ok());
}

#[test]
fn windows_past_the_count_cap_are_not_counted_and_those_before_still_are() {
    // Three sessions of the same calls: an early pair, 40 fillers, a late
    // pair; pairs only, so every pair is its own pattern.
    let mut calls: Vec<String> = vec!["early_a".into(), "early_b".into()];
    calls.extend((0..40).map(|i| format!("filler_{i}")));
    calls.extend(["late_a".to_string(), "late_b".to_string()]);
    let sessions: Vec<Session> = (0..3)
        .map(|i| Session {
            id: format!("s{i}"),
            tools: calls.clone(),
        })
        .collect();
    let pairs = Options {
        max_len: 2,
        ..Options::default()
    };
    let has = |found: &[Pattern], pair: [&str; 2]| found.iter().any(|p| tools(p) == pair);
    let all = detect(&sessions, &pairs);
    assert!(has(&all, ["early_a", "early_b"]) && has(&all, ["late_a", "late_b"]));
    // Room for 25 distinct windows of a length: what came first is still
    // counted and found, what came after is not.
    let capped = Options {
        max_windows: 25,
        ..pairs
    };
    let found = detect(&sessions, &capped);
    assert!(has(&found, ["early_a", "early_b"]), "{found:#?}");
    assert!(!has(&found, ["late_a", "late_b"]), "{found:#?}");
}
