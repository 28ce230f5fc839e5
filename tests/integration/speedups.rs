//! The host's speedups (the engine's worker pool reading files ahead,
//! splitting long batched reads, checking entries sent ahead and a long
//! answer's entries in halves) change how fast a catalog comes, never what
//! it holds: a large tree gives the same catalog with each one off, and
//! the pool never grows past its bound.

use skillhost::sandbox::{MAX_WORKERS, Speedups};
use skillhost::{Catalog, Registry};
use skillhost_tests::{runtime, skill_md, tree};

/// What a catalog shows: each skill's name, document and fields, and each
/// diagnostic.
fn shown(catalog: &Catalog) -> (Vec<String>, Vec<String>) {
    let skills = catalog
        .skills
        .iter()
        .map(|s| {
            format!(
                "{} {:?} {:?} {:?}",
                s.name(),
                s.path,
                s.description(),
                s.json
            )
        })
        .collect();
    let diagnostics = catalog
        .diagnostics
        .iter()
        .map(|d| format!("{} {}", d.path, d.message))
        .collect();
    (skills, diagnostics)
}

#[test]
fn each_speedup_off_gives_the_same_catalog_and_the_pool_stays_within_its_bound() {
    // Past every threshold: read-ahead, split batches, entries sent ahead
    // and checked in halves; with a broken document among them.
    let mut files: Vec<(String, String)> = (0..700)
        .map(|i| {
            let name = format!("skill-{i:04}");
            (
                format!("{name}/SKILL.md"),
                skill_md(&name, &format!("Skill {i}")),
            )
        })
        .collect();
    files.push((
        "broken/SKILL.md".into(),
        "---\ndescription: [unclosed\n---\n".into(),
    ));
    let borrowed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(path, text)| (path.as_str(), text.as_bytes()))
        .collect();
    let root = tree(&borrowed);
    let runtime = runtime();
    let workers = runtime.engine().workers();
    let catalog_with = |speedups: Speedups| {
        workers.set_speedups(speedups);
        let registry = Registry::new();
        registry
            .add(
                runtime
                    .local_provider(root.path())
                    .expect("the local provider starts"),
            )
            .expect("added");
        let shown = shown(&registry.snapshot());
        workers.set_speedups(Speedups::ALL);
        shown
    };
    let all = catalog_with(Speedups::ALL);
    assert_eq!(all.0.len(), 700, "{:?}", all.1);
    assert!(
        all.1.iter().any(|d| d.contains("broken")),
        "the broken document is named: {:?}",
        all.1
    );
    let on = Speedups::ALL;
    for (speedup, switches) in [
        (
            "read_ahead",
            Speedups {
                read_ahead: false,
                ..on
            },
        ),
        (
            "parallel_reads",
            Speedups {
                parallel_reads: false,
                ..on
            },
        ),
        (
            "checks_ahead",
            Speedups {
                checks_ahead: false,
                ..on
            },
        ),
        (
            "parallel_checks",
            Speedups {
                parallel_checks: false,
                ..on
            },
        ),
        ("all", Speedups::NONE),
    ] {
        assert_eq!(catalog_with(switches), all, "with {speedup} off");
    }
    assert!(workers.threads() <= MAX_WORKERS, "{workers:?}");
    if std::thread::available_parallelism().map_or(1, usize::from) > 1 {
        assert!(
            workers.threads() > 0,
            "the speedups ran on the pool: {workers:?}"
        );
    }
}
