//! The remote provider against a skills server nobody here wrote:
//! FastMCP's `SkillsDirectoryProvider` (installed by
//! `scripts/ensure-mcp-tools`), on loopback, serving a folder of skills. It
//! offers the Skills Extension only on the stateless 2026-07-28 revision,
//! so this also covers `server/discover` and the per-request envelope.

use crate::support::*;
use serde_json::Value;
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct FastMcp {
    child: Child,
    url: String,
}

impl FastMcp {
    fn start(root: &std::path::Path) -> FastMcp {
        // A free port: bound, read, released for the server to take.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let python = tool("fastmcp-venv/bin/python");
        let script = workspace().join("cli/tests/serve/fastmcp_server.py");
        let child = Command::new(python)
            .arg(script)
            .arg(root)
            .arg(port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the FastMCP server starts");
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "FastMCP never listened on {port}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        FastMcp {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

impl Drop for FastMcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn fastmcp_skills_are_listed_loaded_and_read_verified() {
    let fixture = Fixture::new(&[
        (
            "alpha/SKILL.md",
            b"---\nname: alpha\ndescription: First\n---\n# alpha\n\nBody of alpha.\n",
        ),
        ("alpha/refs/a.md", b"reference of alpha\n"),
        (
            "beta/SKILL.md",
            b"---\nname: beta\ndescription: Second\n---\nBody of beta.\n",
        ),
    ]);
    let server = FastMcp::start(&fixture.root);
    let remote = format!("fm=mcp+{}", server.url);
    let listed = fixture
        .command(&["catalog", "--no-bundled", "--remote", &remote, "--json"])
        .output()
        .unwrap();
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed["complete"], true, "{listed}");
    let names: Vec<&str> = listed["skills"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["fm:alpha", "fm:beta"], "{listed}");
    let loaded = fixture
        .command(&[
            "load",
            "fm:alpha",
            "--no-bundled",
            "--remote",
            &remote,
            "--json",
        ])
        .output()
        .unwrap();
    assert!(loaded.status.success(), "{loaded:?}");
    let loaded: Value = serde_json::from_slice(&loaded.stdout).unwrap();
    assert_eq!(loaded["body"], "# alpha\n\nBody of alpha.\n", "{loaded}");
    let files = loaded["provenance"]["files"].as_array().unwrap();
    assert!(
        files.iter().any(|f| f["path"] == "refs/a.md"
            && f["digest"]
                .as_str()
                .is_some_and(|d| d.starts_with("sha256:"))),
        "{loaded}"
    );
    // A resource through the registry API: read and verified.
    let source = skillhost::RemoteSource::from_arg(&remote).unwrap();
    let registry = skillhost::Registry::new();
    registry
        .add(skillhost_tests::runtime().remote_provider(&source).unwrap())
        .unwrap();
    assert_eq!(
        registry.read_resource("fm:alpha", "refs/a.md").unwrap(),
        b"reference of alpha\n"
    );
}
