//! Remote figures (issue: bundled and remote providers): the time to list a
//! remote catalog of 1,000 skills from a real nginx on loopback, cold (a
//! new provider instance fetching and checking the whole index) and on a
//! poll answered 304, and the bytes an unchanged poll costs. Run with
//! `cargo bench -p skillhost-tests --bench remote` (needs nginx).

use skillhost::RemoteSource;
use skillhost::{Registry, Runtime};
use skillhost_publish::mirror;
use skillhost_tests::nginx::Nginx;
use skillhost_tests::{shared_cache_dir, write};
use std::time::{Duration, Instant};

const SKILLS: usize = 1000;
const ROUNDS: usize = 21;

fn percentile(samples: &[Duration], p: f64) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort_unstable();
    sorted[((p / 100.0) * (sorted.len() - 1) as f64).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let runtime = Runtime::with_cache_dir(Some(shared_cache_dir())).expect("the sandbox starts");
    let root = tempfile::tempdir().expect("a folder");
    for i in 0..SKILLS {
        let name = format!("skill-{i:04}");
        write(
            root.path(),
            &format!("{name}/SKILL.md"),
            format!(
                "---\nname: {name}\ndescription: Skill number {i}, for measuring remote listing. Use when benchmarking.\nmetadata:\n  team: bench\n---\n# {name}\n\n{}\n",
                "Body text. ".repeat(40)
            )
            .as_bytes(),
        );
        write(
            root.path(),
            &format!("{name}/references/notes.md"),
            b"# Notes\n\nMore detail.\n",
        );
    }
    let out = tempfile::tempdir().expect("a folder");
    let started = Instant::now();
    let report = mirror::write(&runtime, &[root.path().to_path_buf()], out.path())
        .expect("the mirror is written");
    let publish = started.elapsed();
    assert_eq!(report.skills, SKILLS);
    let nginx = Nginx::serve(out.path());
    let source = RemoteSource::new(&nginx.url()).expect("a valid URL");
    // The component is compiled once; instances start from the cache.
    drop(
        runtime
            .remote_component()
            .expect("the remote component loads"),
    );

    let mut cold = Vec::new();
    for _ in 0..ROUNDS {
        let registry = Registry::new();
        registry
            .add(runtime.remote_provider(&source).expect("a provider"))
            .unwrap();
        let started = Instant::now();
        let catalog = registry.snapshot();
        cold.push(started.elapsed());
        assert!(catalog.complete && catalog.skills.len() == SKILLS);
    }

    let registry = Registry::new();
    let provider = runtime.remote_provider(&source).expect("a provider");
    registry.add(provider.clone()).unwrap();
    assert_eq!(registry.snapshot().skills.len(), SKILLS);
    let mut unchanged = Vec::new();
    for _ in 0..ROUNDS {
        let started = Instant::now();
        provider.poll().expect("the poll runs");
        let catalog = registry.snapshot();
        unchanged.push(started.elapsed());
        assert!(catalog.complete && catalog.skills.len() == SKILLS);
    }
    let index = nginx.logged("/index.json", 2 * ROUNDS + 1);
    let full = index
        .iter()
        .find(|l| l.status == 200)
        .map_or(0, |l| l.bytes);
    let not_modified: Vec<u64> = index
        .iter()
        .filter(|l| l.status == 304)
        .map(|l| l.bytes)
        .collect();
    assert_eq!(not_modified.len(), ROUNDS, "every poll was answered 304");

    println!("remote catalog of {SKILLS} skills from nginx on loopback ({ROUNDS} rounds):");
    println!("  publish (skillhost mirror):     {:8.1} ms", ms(publish));
    println!(
        "  cold list (new instance):      p50 {:7.2} ms   p90 {:7.2} ms",
        ms(percentile(&cold, 50.0)),
        ms(percentile(&cold, 90.0))
    );
    println!(
        "  poll answered 304 + snapshot:  p50 {:7.2} ms   p90 {:7.2} ms",
        ms(percentile(&unchanged, 50.0)),
        ms(percentile(&unchanged, 90.0))
    );
    println!(
        "  ratio 304 poll / cold list:    {:.3}",
        ms(percentile(&unchanged, 50.0)) / ms(percentile(&cold, 50.0))
    );
    println!("  index transferred (200):       {full} bytes");
    println!(
        "  unchanged poll (304):          {} bytes ({:.4} of the index)",
        not_modified[0],
        not_modified[0] as f64 / full.max(1) as f64
    );
}
