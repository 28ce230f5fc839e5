//! The seed's scenarios through a real store on an injected clock: the
//! score, the lifecycle at each boundary, pinned skills, grace for new
//! ones, and the runner's decisions.

use super::store;
use skillhost::model::{Catalog, Location, Scope, Skill};
use skillhost_skill::frontmatter::Frontmatter;
use skillhost_usage::UsageStore;
use skillhost_usage::clock::days;
use skillhost_usage::curator::{self, State};
use skillhost_usage::runner::{Decision, Runner, RunnerConfig};
use skillhost_usage::score::skill_score;
use skillhost_usage::store::{InvocationRecord, Outcome};
use std::sync::Arc;
use std::time::Duration;

fn skill(name: &str, pinned: bool) -> Arc<Skill> {
    let mut frontmatter = Frontmatter::defaults(name);
    frontmatter.description = Some(format!("{name} does things"));
    frontmatter.pinned = pinned;
    Arc::new(Skill {
        source: "local:/skills".into(),
        scope: Scope::User,
        path: Location::Path(format!("/skills/{name}/SKILL.md").into()),
        base: Location::Path(format!("/skills/{name}").into()),
        frontmatter,
        json: None,
    })
}

fn catalog(skills: &[Arc<Skill>]) -> Catalog {
    Catalog {
        complete: true,
        skills: skills.to_vec(),
        ..Catalog::default()
    }
}

fn use_skill(store: &UsageStore, name: &str) {
    store
        .record_invocation(&InvocationRecord {
            skill: name,
            source: "local:/skills",
            caller: "model",
            session: "s",
            outcome: Outcome::Inline,
        })
        .unwrap();
}

#[test]
fn a_skill_used_three_times_two_weeks_ago_scores_ln_4_times_a_quarter() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = store(dir.path());
    for _ in 0..3 {
        use_skill(&store, "review");
    }
    clock.advance(days(14.0));
    let usage = store.usage().unwrap();
    let score = skill_score(usage.get("review"), false, store.now());
    assert!((score - 4f64.ln() * 0.25).abs() < 1e-9, "{score}");
    let report = curator::review(&store, &catalog(&[skill("review", false)]), &[]).unwrap();
    assert_eq!(report.skills[0].state, State::Inactive);
    assert!((report.skills[0].score - 4f64.ln() * 0.25).abs() < 1e-9);
}

#[test]
fn the_state_changes_just_past_each_boundary_since_the_last_use() {
    for (age, state) in [
        (6.9, State::Active),
        (7.1, State::Inactive),
        (29.9, State::Inactive),
        (30.1, State::Stale),
        (89.9, State::Stale),
        (90.1, State::Deprecated),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (store, clock) = store(dir.path());
        let skills = [skill("used", false), skill("seen", false)];
        // "seen" is never used: it counts from when it was first seen.
        curator::review(&store, &catalog(&skills), &[]).unwrap();
        use_skill(&store, "used");
        clock.advance(days(age));
        let report = curator::review(&store, &catalog(&skills), &[]).unwrap();
        for assessment in &report.skills {
            assert_eq!(
                assessment.state, state,
                "{} after {age} days",
                assessment.name
            );
        }
        assert_eq!(
            report.candidates().count(),
            if state == State::Deprecated { 2 } else { 0 }
        );
    }
}

#[test]
fn a_pinned_skill_stays_active_and_scores_at_least_0_8() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = store(dir.path());
    let skills = [skill("kept", true)];
    curator::review(&store, &catalog(&skills), &[]).unwrap();
    clock.advance(days(400.0));
    let report = curator::review(&store, &catalog(&skills), &[]).unwrap();
    let kept = &report.skills[0];
    assert_eq!((kept.state, kept.score), (State::Active, 0.8));
    assert_eq!(report.candidates().count(), 0);
    assert!(matches!(kept.archivable, curator::Archivable::No(_)));
}

#[test]
fn a_new_skill_has_seven_days_of_grace_from_when_it_was_first_seen() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = store(dir.path());
    let old = [skill("old", false)];
    curator::review(&store, &catalog(&old), &[]).unwrap();
    clock.advance(days(200.0));
    // A skill that appears now, next to one seen long ago.
    let both = [skill("old", false), skill("new", false)];
    let report = curator::review(&store, &catalog(&both), &[]).unwrap();
    let state = |r: &curator::Report, n: &str| r.skills.iter().find(|a| a.name == n).unwrap().state;
    assert_eq!(state(&report, "new"), State::Active);
    assert_eq!(state(&report, "old"), State::Deprecated);
    clock.advance(days(6.9));
    let report = curator::review(&store, &catalog(&both), &[]).unwrap();
    assert_eq!(state(&report, "new"), State::Active);
    clock.advance(days(0.2));
    let report = curator::review(&store, &catalog(&both), &[]).unwrap();
    assert_eq!(state(&report, "new"), State::Inactive);
}

#[test]
fn the_runner_skips_when_paused_busy_or_too_soon_and_reviews_when_due() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = store(dir.path());
    let store = Arc::new(store);
    let config = RunnerConfig::default();
    let runner = Runner::new(store.clone(), Vec::new(), config);
    let skills = catalog(&[skill("review", false)]);
    // Another process pauses every runner through the same file.
    let other = UsageStore::open(store.path()).unwrap();
    other.set_paused(true).unwrap();
    let checked = runner.check(&skills).unwrap();
    assert_eq!((checked.decision, checked.report), (Decision::Paused, None));
    other.set_paused(false).unwrap();
    // Activity an hour ago: busy.
    store.heartbeat("serve").unwrap();
    clock.advance(Duration::from_secs(3600));
    assert!(matches!(
        runner.check(&skills).unwrap().decision,
        Decision::Busy { .. }
    ));
    // Idle long enough and never reviewed: due, and the review is stored.
    clock.advance(Duration::from_secs(3600));
    let checked = runner.check(&skills).unwrap();
    assert_eq!(checked.decision, Decision::Due);
    assert_eq!(checked.report.unwrap().skills.len(), 1);
    let review = store.last_review().unwrap().unwrap();
    assert_eq!((review.kind.as_str(), review.at), ("runner", store.now()));
    assert_eq!(review.report["skills"][0]["name"], "review");
    // Right after: too soon, however idle.
    clock.advance(days(6.9));
    assert!(matches!(
        runner.check(&skills).unwrap().decision,
        Decision::TooSoon { .. }
    ));
    clock.advance(days(0.2));
    assert_eq!(runner.check(&skills).unwrap().decision, Decision::Due);
}

#[test]
fn two_runners_on_one_store_review_once() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _clock) = store(dir.path());
    let store = Arc::new(store);
    let first = Runner::new(store.clone(), Vec::new(), RunnerConfig::default());
    let second = Runner::new(store.clone(), Vec::new(), RunnerConfig::default());
    let skills = catalog(&[skill("review", false)]);
    assert_eq!(first.check(&skills).unwrap().decision, Decision::Due);
    let again = second.check(&skills).unwrap();
    assert!(matches!(again.decision, Decision::TooSoon { .. }));
    assert_eq!(again.report, None);
}
