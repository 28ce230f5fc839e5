//! The listing ordered and cut by usage score.

use super::super::test_skills::skill;
use super::*;

fn scores(pairs: &[(&str, f64)]) -> Scores {
    pairs.iter().map(|(n, s)| (n.to_string(), *s)).collect()
}

fn line<'l>(listing: &'l Listing, name: &str) -> &'l str {
    let prefix = format!("- {name}");
    listing
        .inner
        .lines()
        .find(|l| *l == prefix || l.starts_with(&format!("{prefix}:")))
        .unwrap_or_else(|| panic!("{name} missing from {}", listing.inner))
}

#[test]
fn ranked_lists_highest_score_first_and_ties_by_name() {
    let a = skill("alpha", "A", Scope::User);
    let b = skill("beta", "B", Scope::User);
    let c = skill("gamma", "C", Scope::User);
    let d = skill("delta", "D", Scope::User);
    let listing = render_ranked(
        &[&a, &b, &c, &d],
        RenderOptions::default(),
        &scores(&[("gamma", 2.0), ("beta", 0.5), ("delta", 0.5)]),
    );
    assert_eq!(listing.names, ["gamma", "beta", "delta", "alpha"]);
    assert_eq!(
        listing.inner,
        "- gamma: C\n- beta: B\n- delta: D\n- alpha: A"
    );
}

#[test]
fn over_budget_the_least_scored_are_shortened_first() {
    let skills: Vec<Skill> = (0..10)
        .map(|i| skill(&format!("s{i}"), &"d".repeat(200), Scope::User))
        .collect();
    let refs: Vec<&Skill> = skills.iter().collect();
    // s0 scores highest, s9 lowest.
    let ranked: Scores = (0..10)
        .map(|i| (format!("s{i}"), 10.0 - i as f64))
        .collect();
    let options = RenderOptions {
        entry_cap: 250,
        budget: 1_600,
        ..RenderOptions::default()
    };
    let listing = render_ranked(&refs, options, &ranked);
    assert!(listing.inner.chars().count() <= 1_600);
    assert_eq!(listing.names.len(), 10, "every skill is still listed");
    let full = format!(": {}", "d".repeat(200));
    for i in 0..7 {
        assert!(
            line(&listing, &format!("s{i}")).ends_with(&full),
            "s{i} keeps its text"
        );
    }
    for i in 8..10 {
        assert_eq!(
            line(&listing, &format!("s{i}")),
            format!("- s{i}"),
            "s{i} is cut to its name"
        );
    }
    let s7 = line(&listing, "s7");
    assert!(s7.ends_with('…') && s7.len() < full.len(), "{s7}");
}

#[test]
fn bundled_skills_keep_their_text_however_low_they_score() {
    let builtin = skill("builtin", &"b".repeat(200), Scope::Bundled);
    let users: Vec<Skill> = (0..8)
        .map(|i| skill(&format!("u{i}"), &"u".repeat(200), Scope::User))
        .collect();
    let mut refs: Vec<&Skill> = users.iter().collect();
    refs.push(&builtin);
    let ranked: Scores = (0..8).map(|i| (format!("u{i}"), 1.0 + i as f64)).collect();
    let options = RenderOptions {
        entry_cap: 250,
        budget: 1_000,
        ..RenderOptions::default()
    };
    let listing = render_ranked(&refs, options, &ranked);
    assert!(listing.inner.chars().count() <= 1_000);
    assert_eq!(listing.names.last().map(String::as_str), Some("builtin"));
    assert!(line(&listing, "builtin").ends_with(&"b".repeat(200)));
    assert_eq!(
        line(&listing, "u0"),
        "- u0",
        "the lowest user skill goes first"
    );
}

#[test]
fn equal_scores_share_the_cut_fairly() {
    let top = skill("top", &"t".repeat(200), Scope::User);
    let rest: Vec<Skill> = (0..6)
        .map(|i| skill(&format!("r{i}"), &"r".repeat(200), Scope::User))
        .collect();
    let mut refs: Vec<&Skill> = rest.iter().collect();
    refs.push(&top);
    let options = RenderOptions {
        entry_cap: 250,
        budget: 1_000,
        ..RenderOptions::default()
    };
    let listing = render_ranked(&refs, options, &scores(&[("top", 3.0)]));
    assert!(line(&listing, "top").ends_with(&"t".repeat(200)));
    let lengths: Vec<usize> = (0..6)
        .map(|i| line(&listing, &format!("r{i}")).chars().count())
        .collect();
    assert!(lengths.windows(2).all(|w| w[0] == w[1]), "{lengths:?}");
    assert!(lengths[0] > 4 + MIN_SHARE, "{lengths:?}");
    assert!(listing.inner.chars().count() <= 1_000);
}

#[test]
fn ranked_output_does_not_depend_on_input_order() {
    let skills: Vec<Skill> = (0..50)
        .map(|i| skill(&format!("k{i:02}"), &"x".repeat(100 + i), Scope::User))
        .collect();
    let ranked: Scores = (0..50)
        .map(|i| (format!("k{i:02}"), (i % 7) as f64))
        .collect();
    let options = RenderOptions {
        entry_cap: 250,
        budget: 2_500,
        ..RenderOptions::default()
    };
    let forward: Vec<&Skill> = skills.iter().collect();
    let backward: Vec<&Skill> = skills.iter().rev().collect();
    let a = render_ranked(&forward, options, &ranked);
    let b = render_ranked(&backward, options, &ranked);
    assert_eq!(a, b);
    assert!(a.inner.chars().count() <= 2_500);
}

#[test]
fn when_names_alone_do_not_fit_the_least_scored_are_left_out() {
    let skills: Vec<Skill> = (0..400)
        .map(|i| skill(&format!("skill-{i:03}"), "desc", Scope::User))
        .collect();
    let refs: Vec<&Skill> = skills.iter().collect();
    let ranked: Scores = (0..400)
        .map(|i| (format!("skill-{i:03}"), i as f64))
        .collect();
    let options = RenderOptions {
        entry_cap: 250,
        budget: 1_000,
        ..RenderOptions::default()
    };
    let listing = render_ranked(&refs, options, &ranked);
    assert!(listing.inner.chars().count() <= 1_000);
    assert_eq!(listing.names[0], "skill-399");
    assert!(listing.names.iter().all(|n| n.as_str() > "skill-300"));
    assert!(
        listing
            .inner
            .ends_with(&format!("more not listed: {MORE_DEFAULT})"))
    );
}
