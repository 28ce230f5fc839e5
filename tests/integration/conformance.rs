//! The conformance kit on real components: it passes every first-party
//! provider and the probe guest, and fails the hostile guest's attacks
//! with the right checks and reasons.

use skillhost::provider::sources::builtin::{BUNDLED_PROVIDER, LOCAL_PROVIDER, REMOTE_PROVIDER};
use skillhost_conformance::{Deadlines, Options, Report, Status, check_bytes};
use skillhost_publish::mirror;
use skillhost_tests::nginx::Nginx;
use skillhost_tests::{HOSTILE_GUEST, PROBE_GUEST, runtime, shared_cache_dir, skill_md, tree};
use std::path::Path;
use std::time::Duration;

fn options() -> Options {
    Options {
        cache_dir: Some(shared_cache_dir()),
        ..Options::default()
    }
}

fn run(name: &str, bytes: &[u8], options: Options) -> Report {
    let report = check_bytes(Path::new(name), bytes, options).expect("the kit runs");
    eprintln!("{}", report.text());
    report
}

fn status(report: &Report, id: &str) -> Option<Status> {
    report.get(id).map(|c| c.status)
}

#[test]
fn the_local_provider_passes_every_check_on_the_fixture() {
    let report = run("local.wasm", LOCAL_PROVIDER, options());
    report.assert_passed();
    assert_eq!(
        report.skipped(),
        0,
        "every check applies to a filesystem provider"
    );
    assert_eq!(
        report.component.wit.as_deref(),
        Some("skillhost:provider@0.3.0")
    );
}

#[test]
fn the_local_provider_over_given_roots_skips_only_what_needs_the_fixture() {
    let root = tree(&[
        ("one/SKILL.md", skill_md("one", "The first").as_bytes()),
        ("one/notes.md", b"notes"),
    ]);
    let report = run("local.wasm", LOCAL_PROVIDER, options().root(root.path()));
    report.assert_passed();
    for id in ["fixture-snapshot", "on-change"] {
        assert_eq!(status(&report, id), Some(Status::Skip), "{id}");
        assert!(report.get(id).unwrap().detail.contains("roots were given"));
    }
    // Deltas are still checked, on what it serves: asked again with
    // nothing changed, its answer builds the same view.
    assert_eq!(status(&report, "delta"), Some(Status::Pass));
    assert_eq!(status(&report, "observe"), Some(Status::Pass));
    assert!(
        report
            .get("resources")
            .unwrap()
            .detail
            .starts_with("2 files")
    );
}

#[test]
fn the_bundled_provider_reads_no_folder_so_the_kit_skips_the_fixtures_by_its_manifest() {
    let report = run("bundled.wasm", BUNDLED_PROVIDER, options());
    report.assert_passed();
    for id in ["fixture-snapshot", "on-change"] {
        let check = report.get(id).unwrap();
        assert_eq!(check.status, Status::Skip, "{id}");
        assert!(
            check.detail.contains("roots: none"),
            "{id}: {}",
            check.detail
        );
    }
    for id in ["load", "resources", "observe", "delta", "boundary"] {
        assert_eq!(status(&report, id), Some(Status::Pass), "{id}");
    }
}

#[test]
fn the_remote_provider_passes_against_a_mirror_on_loopback() {
    let skills = tree(&[
        ("one/SKILL.md", skill_md("one", "The first").as_bytes()),
        ("one/notes.md", b"notes"),
        ("two/SKILL.md", skill_md("two", "The second").as_bytes()),
    ]);
    let out = tree(&[]);
    mirror::write(&runtime(), &[skills.path().to_path_buf()], out.path()).unwrap();
    let nginx = Nginx::serve(out.path());
    let report = run(
        "remote.wasm",
        REMOTE_PROVIDER,
        options().setting("url", &nginx.url()),
    );
    report.assert_passed();
    assert!(
        report
            .get("load")
            .unwrap()
            .detail
            .starts_with("2 documents")
    );
    assert!(
        report
            .get("resources")
            .unwrap()
            .detail
            .contains("files of 2 skills")
    );
}

#[test]
fn the_remote_provider_without_a_url_fails_init_and_says_why() {
    let report = run("remote.wasm", REMOTE_PROVIDER, options());
    let init = report.get("init").unwrap();
    assert_eq!(init.status, Status::Fail);
    assert!(init.detail.contains("needs a url"), "{}", init.detail);
    assert_eq!(status(&report, "load"), Some(Status::Skip));
}

#[test]
fn the_probe_guest_passes() {
    let report = run("probe.wasm", PROBE_GUEST, options());
    report.assert_passed();
    // It tries what it may not; that is reported, not failed.
    let denied = report.get("denied-imports").unwrap();
    assert!(
        denied.detail.contains("refused while it ran"),
        "{}",
        denied.detail
    );
    assert!(denied.detail.contains("environment"), "{}", denied.detail);
}

/// The hostile guest with `settings`, over a root of its own (so the
/// fixture checks are skipped), and a 2 s sandbox deadline.
fn hostile(settings: &[(&str, &str)]) -> Report {
    hostile_within(settings, Duration::from_secs(2))
}

fn hostile_within(settings: &[(&str, &str)], limit: Duration) -> Report {
    let root = tree(&[("inside.txt", b"x")]);
    let mut options = options().root(root.path());
    options.deadlines = Deadlines {
        limit: Some(limit),
        ..Deadlines::default()
    };
    for (k, v) in settings {
        options = options.setting(k, v);
    }
    run("hostile.wasm", HOSTILE_GUEST, options)
}

/// Asserts the report fails exactly the checks `expected` (id, words of
/// the reason).
fn fails_with(report: &Report, expected: &[(&str, &str)]) {
    let failed: Vec<&str> = report.failures().map(|c| c.id).collect();
    let wanted: Vec<&str> = expected.iter().map(|(id, _)| *id).collect();
    assert_eq!(failed, wanted, "{}", report.text());
    for (id, words) in expected {
        let detail = &report.get(id).unwrap().detail;
        assert!(
            detail.contains(words),
            "{id}: {detail:?} should say {words:?}"
        );
    }
}

#[test]
fn the_hostile_guest_without_an_attack_passes() {
    hostile(&[]).assert_passed();
}

#[test]
fn a_provider_looping_in_init_fails_init_on_the_deadline() {
    let report = hostile(&[("attack", "loop"), ("in", "init")]);
    fails_with(
        &report,
        &[
            ("init", "deadline"),
            ("deadlines", "init ran past the sandbox's deadline"),
        ],
    );
    assert_eq!(status(&report, "snapshot"), Some(Status::Skip));
    assert!(report.get("load").unwrap().detail.contains("init failed"));
}

#[test]
fn a_flood_of_invalidations_fails_the_storm_check() {
    fails_with(
        &hostile(&[("attack", "storm")]),
        &[
            ("snapshot", "flood"),
            ("invalidation-storm", "flooded invalidate-provider"),
        ],
    );
}

#[test]
fn a_provider_invalidating_itself_on_every_snapshot_fails_the_storm_check() {
    fails_with(
        &hostile(&[("attack", "self-invalidate")]),
        &[("invalidation-storm", "called invalidate-provider")],
    );
}

#[test]
fn entries_the_host_refuses_fail_the_boundary_check() {
    let report = hostile(&[("attack", "bad-names")]);
    fails_with(&report, &[("boundary", "outside the provider's grants")]);
    let detail = &report.get("boundary").unwrap().detail;
    assert!(detail.contains("path separator"), "{detail}");
}

#[test]
fn a_listing_over_the_resource_limit_fails_resources_and_boundary() {
    fails_with(
        &hostile(&[("attack", "many-resources"), ("in", "list-resources")]),
        &[
            ("boundary", "over the limit of 512 per skill"),
            (
                "resources",
                "listed 513 files, over the limit of 512 per skill",
            ),
        ],
    );
}

#[test]
fn a_provider_trapping_in_load_fails_load() {
    fails_with(
        &hostile(&[("attack", "trap"), ("in", "load")]),
        &[("load", "trap")],
    );
}

#[test]
fn a_provider_looping_in_load_fails_load_and_deadlines() {
    fails_with(
        &hostile(&[("attack", "loop"), ("in", "load")]),
        &[
            ("load", "deadline"),
            (
                "deadlines",
                "load(\"steady\") ran past the sandbox's deadline",
            ),
        ],
    );
}

#[test]
fn a_slow_call_inside_the_limit_fails_deadlines_only() {
    fails_with(
        // Well past the 1 s allowed, well before the 5 s limit.
        &hostile_within(
            &[("attack", "slow"), ("in", "load"), ("size", "1500")],
            Duration::from_secs(5),
        ),
        &[("deadlines", "load(\"steady\") took")],
    );
}

#[test]
fn a_provider_leaking_on_every_snapshot_fails_memory() {
    fails_with(
        &hostile(&[("attack", "leak"), ("size", "65536")]),
        &[("memory", "linear memory grew from")],
    );
}

#[test]
fn a_provider_exhausting_its_memory_fails_memory() {
    fails_with(
        &hostile(&[("attack", "memory"), ("in", "load")]),
        &[("load", "memory"), ("memory", "it ran out of memory")],
    );
}

#[test]
fn an_incomplete_snapshot_fails_the_snapshot_check() {
    fails_with(
        &hostile(&[("attack", "incomplete")]),
        &[("snapshot", "incomplete")],
    );
}

#[test]
fn a_filesystem_provider_ignoring_its_root_fails_the_fixture_and_on_change() {
    // Without a root of its own the hostile guest is granted the fixture;
    // it imports files, so it is judged as a filesystem provider.
    let report = run("hostile.wasm", HOSTILE_GUEST, options());
    fails_with(
        &report,
        &[
            ("fixture-snapshot", "alpha (alpha/SKILL.md) is not listed"),
            ("on-change", "it watches nothing that covers"),
        ],
    );
    let fixture = &report.get("fixture-snapshot").unwrap().detail;
    assert!(fixture.contains("steady is listed"), "{fixture}");
    assert!(
        fixture.contains("no error diagnostic for broken/SKILL.md"),
        "{fixture}"
    );
    let on_change = &report.get("on-change").unwrap().detail;
    assert!(on_change.contains("did not invalidate"), "{on_change}");
    // It answers whole lists that equal a fresh instance's: no delta fault.
    assert_eq!(status(&report, "delta"), Some(Status::Pass));
}

#[test]
fn the_hostile_guest_is_told_once_per_reason_what_is_denied() {
    let detail = hostile(&[]).get("denied-imports").unwrap().detail.clone();
    assert_eq!(
        detail.matches("no network is granted").count(),
        1,
        "{detail}"
    );
    assert!(
        detail.contains("wasi:sockets/tcp-create-socket@0.2.12"),
        "{detail}"
    );
}

#[test]
fn a_million_entries_exhaust_the_memory_cap_and_fail_snapshot_and_memory() {
    fails_with(
        &hostile(&[("attack", "many-skills")]),
        &[
            ("snapshot", "memory"),
            ("memory", "it ran out of memory: snapshot"),
        ],
    );
}
