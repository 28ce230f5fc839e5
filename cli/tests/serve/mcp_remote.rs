//! The remote provider over MCP (`mcp+http://`) against `skillhost serve
//! --http` on loopback: listing across pages, loading and reading files
//! verified against their digests, a change on the server's disk reaching
//! the client through the host's poll, and a poll that finds nothing new
//! invalidating nothing.

use crate::support::*;
use serde_json::Value;
use skillhost::registry::watch::WatchOptions;
use skillhost::{Provider, Registry, RemoteSource, RemoteTransport, Scope};
use skillhost_tests::{runtime, skill_md};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn three_skills() -> Fixture {
    Fixture::new(&[
        ("alpha/SKILL.md", skill_md("alpha", "First").as_bytes()),
        ("alpha/refs/a.md", b"reference of alpha\n"),
        ("alpha/data.bin", &[0u8, 1, 2, 255, 254]),
        ("beta/SKILL.md", skill_md("beta", "Second").as_bytes()),
        ("gamma/SKILL.md", skill_md("gamma", "Third").as_bytes()),
    ])
}

fn source(server: &Server) -> RemoteSource {
    RemoteSource::from_arg(&format!("team=mcp+{}", server.url)).unwrap()
}

fn registry(source: &RemoteSource) -> (Registry, Arc<Provider>) {
    let provider = runtime().remote_provider(source).unwrap();
    let registry = Registry::new();
    registry.add(provider.clone()).unwrap();
    (registry, provider)
}

fn until(what: &str, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{what} never happened"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_skills_server_lists_three_pages_and_loads_verified_files() {
    let fixture = three_skills();
    // One entry a page: three skills are three pages.
    let server = Server::start(&fixture, &["--page-size", "1"]);
    let source = source(&server);
    assert_eq!(source.transport, RemoteTransport::Mcp);
    let (registry, provider) = registry(&source);
    let catalog = registry.snapshot();
    assert!(catalog.complete, "{:#?}", catalog.diagnostics);
    let names: Vec<&str> = catalog.skills.iter().map(|s| s.name()).collect();
    assert_eq!(names, ["team:alpha", "team:beta", "team:gamma"]);
    for skill in &catalog.skills {
        assert_eq!(skill.scope, Scope::Remote);
        assert_eq!(skill.source, "remote:team");
    }
    let doc = registry.load("team:alpha").unwrap();
    assert_eq!(doc.body, "# alpha\n\nBody of alpha.\n");
    let files = registry.list_resources("team:alpha").unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["SKILL.md", "data.bin", "refs/a.md"]);
    assert_eq!(
        registry.read_resource("team:alpha", "refs/a.md").unwrap(),
        b"reference of alpha\n"
    );
    // A binary file travels as base64 and arrives byte for byte.
    assert_eq!(
        registry.read_resource("team:alpha", "data.bin").unwrap(),
        [0u8, 1, 2, 255, 254]
    );
    assert!(
        registry
            .read_resource("team:alpha", "../beta/SKILL.md")
            .is_err()
    );
    assert!(
        registry.load("alpha").is_err(),
        "only the labelled name exists"
    );
    assert_eq!(provider.stats().instantiations(), 1);
}

#[test]
fn a_poll_that_finds_nothing_new_invalidates_nothing_and_a_change_invalidates_once() {
    let fixture = three_skills();
    // ttlMs 0: the client may list again on every poll.
    let server = Server::start(&fixture, &["--page-size", "1", "--ttl-ms", "0"]);
    let (registry, provider) = registry(&source(&server));
    assert!(registry.snapshot().complete);
    let generation = provider.signals().generation();
    for _ in 0..3 {
        provider.poll().unwrap();
    }
    assert_eq!(
        provider.signals().generation(),
        generation,
        "nothing changed"
    );
    std::fs::write(
        fixture.root.join("beta/SKILL.md"),
        skill_md("beta", "Changed on the server"),
    )
    .unwrap();
    until("the server's listing changing", || {
        provider.poll().unwrap();
        provider.signals().generation() != generation
    });
    assert_eq!(provider.signals().generation(), generation + 1);
    provider.poll().unwrap();
    assert_eq!(provider.signals().generation(), generation + 1, "once");
    let catalog = registry.snapshot();
    assert_eq!(
        catalog.get("team:beta").and_then(|s| s.description()),
        Some("Changed on the server")
    );
}

#[test]
fn a_change_on_the_servers_disk_reaches_the_watching_catalog_through_the_poll() {
    let fixture = three_skills();
    let server = Server::start(&fixture, &["--page-size", "1", "--ttl-ms", "0"]);
    let mut source = source(&server);
    source.poll = Duration::from_millis(100);
    let (registry, _provider) = registry(&source);
    registry.watch(WatchOptions::default()).unwrap();
    assert!(registry.snapshot().complete);
    std::fs::create_dir_all(fixture.root.join("delta")).unwrap();
    std::fs::write(
        fixture.root.join("delta/SKILL.md"),
        skill_md("delta", "Added later"),
    )
    .unwrap();
    until("the new skill reaching the catalog", || {
        registry.snapshot().get("team:delta").is_some()
    });
}

#[test]
fn a_long_ttl_is_honoured_so_a_poll_inside_it_asks_nothing() {
    let fixture = three_skills();
    let server = Server::start(&fixture, &["--ttl-ms", "600000"]);
    let (registry, provider) = registry(&source(&server));
    assert!(registry.snapshot().complete);
    let generation = provider.signals().generation();
    std::fs::write(
        fixture.root.join("beta/SKILL.md"),
        skill_md("beta", "Changed on the server"),
    )
    .unwrap();
    // The listing may be kept for ten minutes (bounded to five): polls now
    // do not ask, so nothing changes here.
    for _ in 0..5 {
        provider.poll().unwrap();
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(provider.signals().generation(), generation);
    // An explicit rescan still lists.
    provider.invalidate();
    assert_eq!(
        registry
            .snapshot()
            .get("team:beta")
            .and_then(|s| s.description()),
        Some("Changed on the server")
    );
}

#[test]
fn the_command_line_lists_and_loads_an_mcp_remote() {
    let fixture = three_skills();
    let server = Server::start(&fixture, &[]);
    let remote = format!("team=mcp+{}", server.url);
    let client = Fixture::new(&[]);
    let listed = client
        .command(&["catalog", "--no-bundled", "--remote", &remote, "--json"])
        .output()
        .unwrap();
    assert!(listed.status.success(), "{listed:?}");
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let names: Vec<&str> = listed["skills"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["team:alpha", "team:beta", "team:gamma"], "{listed}");
    let loaded = client
        .command(&[
            "load",
            "team:alpha",
            "--no-bundled",
            "--remote",
            &remote,
            "--json",
        ])
        .output()
        .unwrap();
    assert!(loaded.status.success(), "{loaded:?}");
    let loaded: Value = serde_json::from_slice(&loaded.stdout).unwrap();
    assert!(
        loaded["body"]
            .as_str()
            .is_some_and(|b| b.contains("Body of alpha")),
        "{loaded}"
    );
    let invoked = client
        .command(&[
            "invoke",
            "--as",
            "model",
            "--no-bundled",
            "--remote",
            &remote,
            "team:beta",
        ])
        .output()
        .unwrap();
    assert!(invoked.status.success(), "{invoked:?}");
    assert!(String::from_utf8_lossy(&invoked.stdout).contains("Body of beta."));
}

#[test]
fn an_approval_binds_every_digest_and_a_changed_file_revokes_it() {
    let fixture = Fixture::new(&[
        (
            "forky/SKILL.md",
            b"---\nname: forky\ndescription: Runs apart\ncontext: fork\nallowed-tools: Read Grep\n---\nDo it.\n",
        ),
        ("forky/refs/notes.md", b"notes\n"),
    ]);
    let server = Server::start(&fixture, &["--ttl-ms", "0"]);
    let remote = format!("team=mcp+{}", server.url);
    let client = Fixture::new(&[]);
    let try_provenance = || {
        let out = client
            .command(&[
                "load",
                "team:forky",
                "--no-bundled",
                "--remote",
                &remote,
                "--json",
            ])
            .output()
            .unwrap();
        let value: Value = serde_json::from_slice(&out.stdout).ok()?;
        out.status.success().then(|| value["provenance"].clone())
    };
    let provenance = || try_provenance().expect("team:forky loads");
    // The server lists what its first scan found once that scan is done.
    until("the server listing forky", || {
        client
            .command(&["catalog", "--no-bundled", "--remote", &remote, "--json"])
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("team:forky"))
    });
    let before = provenance();
    assert_eq!(before["allowed_tools_approved"], false, "{before}");
    assert_eq!(before["source"], "remote:team");
    let files = before["files"].as_array().unwrap();
    assert_eq!(files.len(), 2, "{before}");
    assert!(
        files.iter().all(|f| f["digest"]
            .as_str()
            .is_some_and(|d| d.starts_with("sha256:"))
            && f["from"]
                .as_str()
                .is_some_and(|u| u.starts_with(&server.url))),
        "{before}"
    );
    let approved = client
        .command(&[
            "approve",
            "team:forky",
            "--no-bundled",
            "--remote",
            &remote,
            "--json",
        ])
        .output()
        .unwrap();
    assert!(approved.status.success(), "{approved:?}");
    let approved: Value = serde_json::from_slice(&approved.stdout).unwrap();
    assert_eq!(
        approved["files"].as_array().map(Vec::len),
        Some(2),
        "{approved}"
    );
    // The record is in the state folder, outside every discovery root.
    let record = approved["record"].as_str().unwrap();
    assert!(record.contains(".local/state/skillhost"), "{record}");
    assert_eq!(provenance()["allowed_tools_approved"], true);
    // A changed reference file on the server (not its SKILL.md): the
    // server hears of it, lists the new digest, and that revokes the
    // approval.
    std::fs::write(fixture.root.join("forky/refs/notes.md"), b"other notes\n").unwrap();
    until("the changed digest revoking the approval", || {
        // While the server takes in the change, a listing may be partial.
        try_provenance().is_some_and(|p| p["allowed_tools_approved"] == false)
    });
    let local = client
        .command(&[
            "approve",
            "nothing-here",
            "--no-bundled",
            "--remote",
            &remote,
        ])
        .output()
        .unwrap();
    assert!(!local.status.success());
}

#[test]
fn serve_re_serves_an_mcp_remote_under_its_label_and_reads_through_it() {
    let fixture = three_skills();
    let upstream = Server::start(&fixture, &[]);
    let remote = format!("team=mcp+{}", upstream.url);
    let client = Fixture::new(&[]);
    let root = client.root.to_str().unwrap().to_string();
    let mut server = crate::support::StdioServer::start(
        &client,
        &["--no-bundled", "--root", &root, "--remote", &remote],
    );
    let listed = server.call("skills/list", serde_json::json!({}));
    let uris: Vec<&str> = listed["result"]["skills"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"))
        .iter()
        .filter_map(|s| s["uri"].as_str())
        .collect();
    assert_eq!(
        uris,
        [
            "skill://team/alpha/SKILL.md",
            "skill://team/beta/SKILL.md",
            "skill://team/gamma/SKILL.md"
        ],
        "{listed}"
    );
    let read = server.call(
        "resources/read",
        serde_json::json!({"uri": "skill://team/alpha/refs/a.md"}),
    );
    assert_eq!(
        read["result"]["contents"][0]["text"], "reference of alpha\n",
        "{read}"
    );
}

/// `watch` takes an MCP remote as the other commands do: its first catalog
/// holds the remote's skills under their label.
#[test]
fn watch_prints_the_catalog_of_an_mcp_remote() {
    use std::io::{BufRead, BufReader};
    let fixture = three_skills();
    let server = Server::start(&fixture, &[]);
    let remote = format!("team=mcp+{}", server.url);
    let client = Fixture::new(&[]);
    let mut child = client
        .command(&["watch", "--json", "--no-bundled", "--remote", &remote])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let line = rx.recv_timeout(Duration::from_secs(60));
    let _ = child.kill();
    let _ = child.wait();
    let catalog: Value = serde_json::from_str(&line.expect("watch printed a catalog")).unwrap();
    let names: Vec<&str> = catalog["skills"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(
        names,
        ["team:alpha", "team:beta", "team:gamma"],
        "{catalog}"
    );
}
