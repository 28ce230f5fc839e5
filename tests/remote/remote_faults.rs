//! Network faults a real web server will not produce on demand, from an
//! in-process HTTP server: answers later than the call's deadline, bodies
//! cut short, an index of 50 MB. Each leaves the remote source incomplete
//! with a diagnostic that says why, while the host and the other
//! providers carry on.

use skillhost::RemoteSource;
use skillhost::registry::watch::WatchOptions;
use skillhost::{Registry, Runtime};
use skillhost_publish::mirror;
use skillhost_tests::http::{Reply, Server};
use skillhost_tests::{runtime, skill_md, tree, write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A published mirror of two skills, to serve from memory.
fn published(runtime: &Runtime) -> (tempfile::TempDir, PathBuf) {
    let root = tree(&[
        ("alpha/SKILL.md", skill_md("alpha", "First").as_bytes()),
        ("beta/SKILL.md", skill_md("beta", "Second").as_bytes()),
    ]);
    let out = root.path().join("out");
    mirror::write(runtime, &[root.path().to_path_buf()], &out).unwrap();
    (root, out)
}

fn file(out: &std::path::Path, path: &str) -> Reply {
    match std::fs::read(out.join(path.trim_start_matches('/'))) {
        Ok(body) => Reply::Full { status: 200, body },
        Err(_) => Reply::Full {
            status: 404,
            body: b"{}".to_vec(),
        },
    }
}

/// A registry with the remote source above a healthy local provider.
fn registry(runtime: &Runtime, source: &RemoteSource) -> (Registry, tempfile::TempDir) {
    let local = tree(&[("steady/SKILL.md", skill_md("steady", "Local").as_bytes())]);
    let registry = Registry::new();
    registry
        .add(runtime.remote_provider(source).unwrap())
        .unwrap();
    registry
        .add(runtime.local_provider(local.path()).unwrap())
        .unwrap();
    (registry, local)
}

fn source(server: &Server, deadline: Duration) -> RemoteSource {
    let mut source = RemoteSource::new(&server.url())
        .unwrap()
        .labelled("m")
        .unwrap();
    source.limits.deadline = deadline;
    source
}

#[test]
fn an_answer_later_than_the_deadline_is_given_up_on_in_time() {
    let runtime = runtime();
    let (_root, out) = published(&runtime);
    let slow = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let server = {
        let slow = slow.clone();
        Server::start(move |path| {
            let reply = file(&out, path);
            if slow.load(std::sync::atomic::Ordering::Acquire) {
                Reply::Late(Duration::from_secs(4), Box::new(reply))
            } else {
                reply
            }
        })
    };
    let deadline = Duration::from_millis(1000);
    let (registry, _local) = registry(&runtime, &source(&server, deadline));
    let started = Instant::now();
    let catalog = registry.snapshot();
    let took = started.elapsed();
    assert!(
        took < deadline + Duration::from_millis(1500),
        "the call waited {took:?} for a server past its {deadline:?} deadline"
    );
    assert!(!catalog.complete);
    assert!(
        catalog.get("steady").is_some(),
        "the local provider answered"
    );
    let d = catalog
        .diagnostics
        .iter()
        .find(|d| d.source.as_deref() == Some("remote:m"))
        .unwrap_or_else(|| panic!("{:#?}", catalog.diagnostics));
    assert!(d.message.contains("index.json"), "{}", d.message);
    // Once the server answers in time, the source recovers.
    slow.store(false, std::sync::atomic::Ordering::Release);
    let remote = registry.provider("remote:m").unwrap();
    let recovered = (0..50).find_map(|_| {
        remote.invalidate();
        let catalog = registry.snapshot();
        if catalog.complete {
            Some(catalog)
        } else {
            std::thread::sleep(Duration::from_millis(100));
            None
        }
    });
    let catalog = recovered.expect("the source recovers when the server is fast again");
    assert!(catalog.get("m:alpha").is_some() && catalog.get("m:beta").is_some());
}

#[test]
fn a_truncated_index_leaves_the_source_incomplete() {
    let runtime = runtime();
    let server = Server::start(|_| Reply::Truncated {
        declared: 10_000,
        body: br#"{"skills": [{"uri": "skill://alpha/SKILL.md", "front"#.to_vec(),
    });
    let (registry, _local) = registry(&runtime, &source(&server, Duration::from_secs(5)));
    let catalog = registry.snapshot();
    assert!(!catalog.complete);
    assert!(catalog.get("steady").is_some());
    assert!(catalog.skills.iter().all(|s| !s.name().starts_with("m:")));
    let d = catalog
        .diagnostics
        .iter()
        .find(|d| d.source.as_deref() == Some("remote:m"))
        .unwrap_or_else(|| panic!("{:#?}", catalog.diagnostics));
    assert!(
        d.message.contains("cannot fetch the index"),
        "{}",
        d.message
    );
}

#[test]
fn a_truncated_skill_md_is_not_loaded() {
    let runtime = runtime();
    let (_root, out) = published(&runtime);
    let server = Server::start(move |path| {
        if path.ends_with("SKILL.md") {
            Reply::Truncated {
                declared: 5_000,
                body: b"---\nname: alpha\n".to_vec(),
            }
        } else {
            file(&out, path)
        }
    });
    let (registry, _local) = registry(&runtime, &source(&server, Duration::from_secs(5)));
    let catalog = registry.snapshot();
    assert!(catalog.complete, "{:#?}", catalog.diagnostics);
    let error = registry.load("m:alpha").unwrap_err().to_string();
    assert!(error.contains("alpha/SKILL.md"), "{error}");
    assert!(registry.load("steady").is_ok());
}

#[test]
fn a_fifty_megabyte_index_is_refused_without_harm() {
    let runtime = runtime();
    let huge = {
        let mut body = br#"{"skills": ["#.to_vec();
        body.resize(50 * 1024 * 1024, b' ');
        body.extend_from_slice(b"]}");
        body
    };
    let server = Server::start(move |_| Reply::Full {
        status: 200,
        body: huge.clone(),
    });
    let (registry, _local) = registry(&runtime, &source(&server, Duration::from_secs(10)));
    let catalog = registry.snapshot();
    assert!(!catalog.complete);
    assert!(catalog.get("steady").is_some());
    let d = catalog
        .diagnostics
        .iter()
        .find(|d| d.source.as_deref() == Some("remote:m"))
        .unwrap_or_else(|| panic!("{:#?}", catalog.diagnostics));
    assert!(
        d.message.contains("larger than 16777216 bytes"),
        "{}",
        d.message
    );
    // The provider was not killed: it refused the index itself.
    let remote = registry.provider("remote:m").unwrap();
    assert_eq!(remote.stats().instantiations(), 1);
}

#[test]
fn a_remote_poll_waiting_on_a_slow_server_does_not_hold_up_a_local_change() {
    let runtime = runtime();
    let (_root, out) = published(&runtime);
    let slow = Arc::new(AtomicBool::new(false));
    let server = {
        let (slow, out) = (slow.clone(), out.clone());
        Server::start(move |path| {
            let reply = file(&out, path);
            if slow.load(Ordering::Acquire) {
                Reply::Late(Duration::from_secs(3), Box::new(reply))
            } else {
                reply
            }
        })
    };
    let mut source = source(&server, Duration::from_secs(10));
    source.poll = Duration::from_millis(50);
    let local = tempfile::tempdir().unwrap();
    let registry = Registry::new();
    registry
        .add(runtime.remote_provider(&source).unwrap())
        .unwrap();
    registry
        .add(runtime.local_provider(local.path()).unwrap())
        .unwrap();
    registry.watch(WatchOptions::default()).unwrap();
    let first = registry.snapshot();
    assert!(first.complete, "{:?}", first.diagnostics);
    assert!(first.get("m:alpha").is_some());
    let (tx, rx) = std::sync::mpsc::channel();
    let _subscription = registry.subscribe(move |change| {
        // Only what can change the catalog; file deliveries are not.
        if matches!(change, skillhost::registry::Change::Catalog { .. }) {
            let _ = tx.send(());
        }
    });
    // The next poll reaches the server, which holds its answer for 3 s.
    slow.store(true, Ordering::Release);
    let asked = server.requests().len();
    let until = Instant::now() + Duration::from_secs(10);
    while server.requests().len() == asked {
        assert!(Instant::now() < until, "the remote source was never polled");
        std::thread::sleep(Duration::from_millis(5));
    }
    let started = Instant::now();
    write(
        local.path(),
        "fresh/SKILL.md",
        skill_md("fresh", "Local").as_bytes(),
    );
    while registry.snapshot().get("fresh").is_none() {
        assert!(started.elapsed() < Duration::from_secs(10), "never seen");
        let _ = rx.recv_timeout(Duration::from_millis(50));
    }
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(1),
        "a local change waited {took:?} on the remote poll"
    );
}
