//! The command line's safety rules: a non-loopback address needs a token
//! file, the token must be usable, and with one every request must carry it.

use crate::support::*;
use std::process::Stdio;

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
    std::fs::write(&short, "abc\n").unwrap();
    let stderr = refused(
        &fixture,
        &[
            "--http",
            "0.0.0.0:0",
            "--token-file",
            short.to_str().unwrap(),
        ],
    );
    assert!(stderr.contains("at least 16 characters"), "{stderr}");
    let stderr = refused(&fixture, &["--http", "not-an-address"]);
    assert!(stderr.contains("IP:PORT"), "{stderr}");
    let stderr = refused(&fixture, &["--token-file", short.to_str().unwrap()]);
    assert!(stderr.contains("--http"), "the token needs HTTP: {stderr}");
}

#[test]
fn with_a_token_file_every_request_without_the_bearer_token_gets_401() {
    let fixture = Fixture::new(&[("a/SKILL.md", b"---\nname: a\ndescription: A\n---\nA\n")]);
    let token = "s3cret-token-for-the-test-0123";
    let file = fixture.base().join("token");
    std::fs::write(&file, format!("{token}\n")).unwrap();
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
