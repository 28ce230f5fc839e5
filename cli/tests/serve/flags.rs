//! The command line's safety rules: a non-loopback address needs a token
//! file, the token must be usable, and with one every request must carry it.

use crate::support::*;
use std::os::unix::fs::PermissionsExt as _;
use std::process::Stdio;

/// A token of 256 bits (`openssl rand -hex 32`).
const STRONG: &str = "5be0c7a1f3d2e4b6a8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5";

/// Writes `token` to `path`, readable by its owner only.
fn private_token(path: &std::path::Path, token: &str) {
    std::fs::write(path, format!("{token}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

fn refused(fixture: &Fixture, args: &[&str]) -> String {
    let root = fixture.root.to_str().unwrap();
    let mut all = vec!["serve", "--no-bundled", "--root", root];
    all.extend_from_slice(args);
    let out = fixture.command(&all).stdin(Stdio::null()).output().unwrap();
    assert!(!out.status.success(), "{args:?} must be refused");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_non_loopback_address_without_a_usable_token_is_refused() {
    let fixture = Fixture::new(&[("a/SKILL.md", b"---\nname: a\ndescription: A\n---\nA\n")]);
    let stderr = refused(&fixture, &["--http", "0.0.0.0:0"]);
    assert!(stderr.contains("--token-file"), "{stderr}");
    let short = fixture.base().join("short-token");
    private_token(&short, "abc");
    let stderr = refused(
        &fixture,
        &[
            "--http",
            "0.0.0.0:0",
            "--token-file",
            short.to_str().unwrap(),
        ],
    );
    assert!(
        stderr.contains("bits") && stderr.contains("openssl rand"),
        "{stderr}"
    );
    let shared = fixture.base().join("shared-token");
    std::fs::write(&shared, format!("{STRONG}\n")).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o644)).unwrap();
    let stderr = refused(
        &fixture,
        &[
            "--http",
            "0.0.0.0:0",
            "--token-file",
            shared.to_str().unwrap(),
        ],
    );
    assert!(
        stderr.contains("chmod 600"),
        "a token others may read: {stderr}"
    );
    let stderr = refused(&fixture, &["--http", "not-an-address"]);
    assert!(stderr.contains("IP:PORT"), "{stderr}");
    let stderr = refused(&fixture, &["--token-file", short.to_str().unwrap()]);
    assert!(stderr.contains("--http"), "the token needs HTTP: {stderr}");
}

#[test]
fn with_a_token_file_every_request_without_the_bearer_token_gets_401() {
    let fixture = Fixture::new(&[("a/SKILL.md", b"---\nname: a\ndescription: A\n---\nA\n")]);
    let token = STRONG;
    let file = fixture.base().join("token");
    private_token(&file, token);
    let server = Server::start(&fixture, &["--token-file", file.to_str().unwrap()]);
    let discover = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let status = |authorization: Option<String>| {
        use std::io::{Read, Write};
        let authority = server
            .url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp");
        let mut stream = std::net::TcpStream::connect(authority).unwrap();
        let mut request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nConnection: close\r\n"
        );
        if let Some(a) = authorization {
            request.push_str(&format!("Authorization: {a}\r\n"));
        }
        request.push_str(&format!(
            "Content-Length: {}\r\n\r\n{discover}",
            discover.len()
        ));
        stream.write_all(request.as_bytes()).unwrap();
        let mut head = [0u8; 12];
        stream.read_exact(&mut head).unwrap();
        String::from_utf8_lossy(&head[9..12]).into_owned()
    };
    assert_eq!(status(None), "401");
    assert_eq!(status(Some("Bearer not-the-token-000000".into())), "401");
    assert_eq!(status(Some(format!("Bearer {token}"))), "200");
    assert_eq!(
        status(Some(format!("bearer {token}"))),
        "200",
        "the scheme in any case"
    );
}

#[test]
fn with_json_the_address_listened_on_is_printed_as_json_on_stdout() {
    use std::io::{BufRead, BufReader};
    let fixture = Fixture::new(&[("a/SKILL.md", b"---\nname: a\ndescription: A\n---\nA\n")]);
    let root = fixture.root.to_str().unwrap();
    let mut child = fixture
        .command(&[
            "serve",
            "--http",
            "127.0.0.1:0",
            "--json",
            "--no-bundled",
            "--root",
            root,
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let printed: serde_json::Value = serde_json::from_str(&line).unwrap();
    let url = printed["url"].as_str().unwrap();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp") && !url.contains(":0/"),
        "{line}"
    );
    let stderr = refused(&fixture, &["--json"]);
    assert!(stderr.contains("--http"), "--json needs --http: {stderr}");
}
