//! Sandbox figures (issue: hostile providers): how far past its deadline a
//! looping call is stopped, how long a faulted provider takes to restart,
//! and the resident memory of idle providers. Run with
//! `cargo bench -p skillhost-tests --bench sandbox`.

use skillhost::provider::sources::builtin::LOCAL_PROVIDER;
use skillhost::sandbox::Limits;
use skillhost::{Registry, Runtime};
use skillhost_tests::{HOSTILE_GUEST, provider_of, shared_cache_dir, skill_md, tree};
use std::time::{Duration, Instant};

fn percentile(samples: &[Duration], p: f64) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort_unstable();
    sorted[((p / 100.0) * (sorted.len() - 1) as f64).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn resident_kib() -> u64 {
    skillhost_tests::ProcessUsage::now().resident_kib()
}

fn overshoot(runtime: &Runtime) {
    let root = tree(&[("x", b"x")]);
    println!("deadline overshoot of a looping snapshot (20 calls each):");
    for deadline_ms in [50u64, 100, 250, 1000] {
        let deadline = Duration::from_millis(deadline_ms);
        let provider = provider_of(
            runtime,
            "spinner",
            runtime.load_component(HOSTILE_GUEST).unwrap(),
            vec![root.path().to_path_buf()],
            &[("attack", "loop"), ("in", "snapshot")],
            Limits {
                deadline,
                restart_initial: Duration::ZERO,
                ..Limits::default()
            },
        );
        // Start the instance outside the timing.
        let _ = provider.load("steady");
        let mut over = Vec::new();
        for _ in 0..20 {
            let started = Instant::now();
            let (view, _) = provider.view();
            let elapsed = started.elapsed();
            assert!(!view.complete);
            over.push(elapsed.saturating_sub(deadline));
            provider.invalidate();
            let _ = provider.load("steady");
        }
        let (p50, p99) = (percentile(&over, 50.0), percentile(&over, 99.0));
        println!(
            "  deadline {deadline_ms:>5} ms: overshoot p50 {:.2} ms ({:.1}%), p99 {:.2} ms ({:.1}%)",
            ms(p50),
            100.0 * p50.as_secs_f64() / deadline.as_secs_f64(),
            ms(p99),
            100.0 * p99.as_secs_f64() / deadline.as_secs_f64(),
        );
    }
}

fn restart(runtime: &Runtime) {
    let root = tree(&[("x", b"x")]);
    // `load` traps, killing the instance; the next call restarts it.
    let provider = provider_of(
        runtime,
        "crasher",
        runtime.load_component(HOSTILE_GUEST).unwrap(),
        vec![root.path().to_path_buf()],
        &[("attack", "trap"), ("in", "load")],
        Limits {
            restart_initial: Duration::ZERO,
            ..Limits::default()
        },
    );
    let _ = provider.list_resources("steady");
    let mut samples = Vec::new();
    for _ in 0..200 {
        assert!(provider.load("steady").is_err(), "the instance traps");
        let started = Instant::now();
        provider.list_resources("steady").unwrap();
        samples.push(started.elapsed());
    }
    println!(
        "restart of a faulted provider (new store, instantiate, init, one call): p50 {:.3} ms, p99 {:.3} ms",
        ms(percentile(&samples, 50.0)),
        ms(percentile(&samples, 99.0))
    );
    let mut loads = Vec::new();
    for _ in 0..20 {
        let started = Instant::now();
        let fresh = Runtime::with_cache_dir(Some(shared_cache_dir())).unwrap();
        let loaded = fresh.load_component(LOCAL_PROVIDER).unwrap();
        loads.push(started.elapsed());
        assert_eq!(
            loaded.cache_outcome(),
            &skillhost::sandbox::CacheOutcome::Hit
        );
    }
    println!(
        "a new process's first start from the compile cache (engine, load, link): p50 {:.3} ms, p99 {:.3} ms",
        ms(percentile(&loads, 50.0)),
        ms(percentile(&loads, 99.0))
    );
}

fn idle_memory(runtime: &Runtime) {
    let roots: Vec<tempfile::TempDir> = (0..100)
        .map(|i| {
            tree(&[(
                &format!("s{i}/SKILL.md") as &str,
                skill_md(&format!("s{i}"), "idle").as_bytes(),
            )])
        })
        .collect();
    // Warm everything shared (engine, component, code) before measuring.
    let warm = runtime.registry_for_roots(&[roots[0].path()]).unwrap();
    warm.snapshot();
    let before = resident_kib();
    let registries: Vec<Registry> = roots
        .iter()
        .map(|r| {
            let registry = runtime.registry_for_roots(&[r.path()]).unwrap();
            assert_eq!(registry.snapshot().skills.len(), 1);
            registry
        })
        .collect();
    std::thread::sleep(Duration::from_millis(100));
    let after = resident_kib();
    let each = after.saturating_sub(before) / registries.len() as u64;
    println!(
        "resident memory of 100 idle providers: {} KiB in all, {} KiB each (base {} KiB)",
        after.saturating_sub(before),
        each,
        before
    );
}

fn main() {
    let runtime = Runtime::with_cache_dir(Some(shared_cache_dir())).unwrap();
    runtime.local_component().unwrap();
    overshoot(&runtime);
    restart(&runtime);
    idle_memory(&runtime);
}
