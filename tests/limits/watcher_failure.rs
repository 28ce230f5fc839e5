//! A watcher that cannot start makes the catalog incomplete and is retried.
//! The failure is real: every inotify instance this user may
//! have is taken, as on a machine running many watchers. The test holds the
//! binary's one lock, so nothing else runs while the limit is reached.

use skillhost::registry::watch::WatchOptions;
use skillhost_tests::{runtime, skill_md, tree, write};
use std::time::{Duration, Instant};

#[test]
fn a_watcher_that_cannot_start_makes_the_catalog_incomplete_until_it_recovers() {
    let _alone = crate::alone();
    let dir = tree(&[("kept/SKILL.md", skill_md("kept", "v1").as_bytes())]);
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let mut taken = Vec::new();
    loop {
        // SAFETY: inotify_init1 has no preconditions; the fd is closed below.
        let fd = unsafe { libc::inotify_init1(libc::IN_CLOEXEC) };
        if fd < 0 {
            break;
        }
        taken.push(fd);
        assert!(taken.len() < 1_000_000, "no inotify limit to reach");
    }
    let registry = runtime().registry_for_roots(&[&root]).unwrap();
    registry
        .watch(WatchOptions {
            retry_initial: Duration::from_millis(50),
            retry_max: Duration::from_millis(200),
            ..WatchOptions::default()
        })
        .unwrap();
    let catalog = registry.snapshot();
    let released = |taken: &mut Vec<i32>| {
        for fd in taken.drain(..) {
            // SAFETY: each fd came from inotify_init1 above and is closed once.
            unsafe { libc::close(fd) };
        }
    };
    let failing = !catalog.complete;
    let diagnostic = catalog
        .diagnostics
        .iter()
        .any(|d| d.message.contains("changes may be missed"));
    let kept = catalog.get("kept").is_some();
    released(&mut taken);
    assert!(
        failing,
        "a watcher that cannot start makes the catalog incomplete"
    );
    assert!(diagnostic, "{:?}", catalog.diagnostics);
    assert!(kept, "the skills themselves are still shown");

    let started = Instant::now();
    while !registry.snapshot().complete {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the watcher never recovered"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    write(&root, "kept/SKILL.md", skill_md("kept", "v2").as_bytes());
    let started = Instant::now();
    while registry
        .snapshot()
        .get("kept")
        .and_then(|s| s.description())
        != Some("v2")
    {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the recovered watcher missed a change"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
