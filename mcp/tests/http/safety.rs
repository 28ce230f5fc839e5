//! Safe by default: only URIs the registry listed are answered (never a
//! path joined from a client's URI), a non-loopback bind needs a token and
//! every request without it gets 401, a foreign Host or Origin gets 403,
//! request bodies are bounded.

use crate::support::*;
use rmcp::ServiceError;
use rmcp::model::{ErrorCode, GetSkillRequestParams, ReadResourceRequestParams};
use serde_json::{Value, json};
use skillhost_mcp::{HttpOptions, HttpServer, ServeError};

const SECRET: &[u8] = b"do not serve me\n";

fn code(result: Result<impl std::fmt::Debug, ServiceError>) -> ErrorCode {
    match result {
        Err(ServiceError::McpError(e)) => e.code,
        other => panic!("expected an MCP error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_and_traversal_uris_are_errors_and_nothing_outside_the_listing_is_read() {
    let served = Served::start(&[
        ("alpha/SKILL.md", skill("alpha", "The first").as_bytes()),
        ("alpha/references/notes.md", b"# Notes\n"),
    ])
    .await;
    let outside = served.root.parent().unwrap();
    std::fs::write(outside.join("secret.txt"), SECRET).unwrap();
    std::os::unix::fs::symlink(
        outside.join("secret.txt"),
        served.root.join("alpha/leak.txt"),
    )
    .unwrap();
    // The symlink appeared after start: wait until the view was made again.
    let rebuilds = served.live.rebuilds();
    let started = std::time::Instant::now();
    while served.live.rebuilds() == rebuilds && started.elapsed() < PATIENCE {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let traversals = [
        "skill://x/../../etc/passwd",
        "skill://alpha/../secret.txt",
        "skill://alpha/references/../../secret.txt",
        "skill://alpha/%2e%2e/secret.txt",
        "skill://alpha/..%2F..%2Fsecret.txt",
        "skill://alpha//etc/passwd",
        "skill://alpha/SKILL.md/../../secret.txt",
        "skill://alpha/references/../SKILL.md",
        "skill://alpha/leak.txt",
        "file:///etc/passwd",
        "skill://alpha/references/missing.md",
        "",
    ];
    for (client, expected) in [
        (legacy(&served.url).await, ErrorCode::RESOURCE_NOT_FOUND),
        (modern(&served.url).await, ErrorCode::INVALID_PARAMS),
    ] {
        for uri in traversals {
            let read = client
                .read_resource(ReadResourceRequestParams::new(uri))
                .await;
            assert_eq!(code(read), expected, "{uri}");
        }
        let listed = client.list_all_resources().await.unwrap();
        assert!(listed.iter().all(|r| !r.uri.contains("leak")), "{listed:?}");
        for uri in [
            "skill://missing/SKILL.md",
            "skill://alpha/references/notes.md",
            "skill://x/../alpha/SKILL.md",
            "skill://alpha/SKILL.md?x",
        ] {
            let got = client.get_skill(GetSkillRequestParams::new(uri)).await;
            assert_eq!(code(got), ErrorCode::INVALID_PARAMS, "{uri}");
        }
        client.cancel().await.unwrap();
    }
    served.stop().await;
}

async fn post(
    url: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> (u16, String, reqwest::header::HeaderMap) {
    let mut request = http()
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "server/discover");
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let response = request.body(body).send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, response.text().await.unwrap(), headers)
}

/// The status line answering a request whose headers declare a body over
/// the limit, sent without the body.
async fn declared_too_large(port: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(format!("127.0.0.1:{port}"))
        .await
        .unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n",
        64 << 20
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let mut buf = [0u8; 1024];
    while !answer.windows(2).any(|w| w == b"\r\n") {
        let n = tokio::time::timeout(std::time::Duration::from_secs(30), stream.read(&mut buf))
            .await
            .expect("the server answers without waiting for the body")
            .unwrap();
        if n == 0 {
            break;
        }
        answer.extend_from_slice(&buf[..n]);
    }
    String::from_utf8_lossy(&answer)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

fn discover() -> Vec<u8> {
    serde_json::to_vec(&json!({
        "jsonrpc": "2.0", "id": 1, "method": "server/discover",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    }))
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_non_loopback_bind_needs_a_token_and_every_request_without_it_gets_401() {
    let served = Served::start(&[("alpha/SKILL.md", skill("alpha", "The first").as_bytes())]).await;
    let everywhere = "0.0.0.0:0".parse().unwrap();
    let refused = HttpServer::start(served.live.clone(), HttpOptions::new(everywhere)).await;
    assert!(
        matches!(refused, Err(ServeError::Unsafe(_))),
        "no token, no bind"
    );

    let token = "0123456789abcdef-secret-token";
    let mut options = HttpOptions::new(everywhere);
    options.token = Some(token.to_string());
    let server = HttpServer::start(served.live.clone(), options)
        .await
        .unwrap();
    let url = format!("http://127.0.0.1:{}/mcp", server.local_addr().port());
    for authorization in [
        None,
        Some("Bearer wrong-token-0123456789"),
        Some(token),
        Some("Basic x"),
    ] {
        let headers: Vec<(&str, &str)> = authorization
            .map(|a| ("Authorization", a))
            .into_iter()
            .collect();
        let (status, _, response) = post(&url, &headers, discover()).await;
        assert_eq!(status, 401, "{authorization:?}");
        assert_eq!(response["www-authenticate"], "Bearer");
    }
    let bearer = format!("Bearer {token}");
    let (status, body, _) = post(&url, &[("Authorization", &bearer)], discover()).await;
    assert_eq!(status, 200, "{body}");
    let client = legacy_with(&url, Some(token), Recorder::default()).await;
    assert_eq!(client.list_all_skills().await.unwrap().len(), 1);
    client.cancel().await.unwrap();
    server.shutdown().await;
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreign_hosts_and_origins_oversized_bodies_and_other_paths_are_refused() {
    let served = Served::start(&[("alpha/SKILL.md", skill("alpha", "The first").as_bytes())]).await;
    let url = served.url.clone();
    let port = url
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches("/mcp")
        .to_string();
    let local_origin = format!("http://localhost:{port}");
    let cases: Vec<(Vec<(&str, &str)>, u16)> = vec![
        (vec![], 200),
        (vec![("Host", "evil.example.com")], 403),
        (vec![("Origin", "http://evil.example.com")], 403),
        (vec![("Origin", local_origin.as_str())], 200),
    ];
    for (headers, expected) in cases {
        let (status, body, _) = post(&url, &headers, discover()).await;
        assert_eq!(status, expected, "{headers:?}: {body}");
        if expected == 200 {
            let value: Value = serde_json::from_str(
                body.lines()
                    .find_map(|l| l.strip_prefix("data: "))
                    .unwrap_or(&body),
            )
            .unwrap();
            assert!(
                value["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/skills"]
                    .is_object()
            );
        }
    }
    // A body declared too large is refused before any of it is sent.
    let status_line = declared_too_large(&port).await;
    assert!(status_line.starts_with("HTTP/1.1 413"), "{status_line}");
    // One streamed without a length is cut off at the limit: the server
    // answers 413 and stops reading, so the client either reads that answer
    // or finds the rest of its upload refused (a broken pipe), depending on
    // how much the socket buffers held. Either way nothing was served.
    let mut huge = discover();
    huge.truncate(huge.len() - 1);
    huge.extend(format!(",\"pad\":\"{}\"}}", "x".repeat(2 << 20)).bytes());
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        huge.chunks(64 * 1024).map(|c| Ok(c.to_vec())).collect();
    let streamed = http()
        .post(&url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "server/discover")
        .body(reqwest::Body::wrap_stream(futures_util::stream::iter(
            chunks,
        )))
        .send()
        .await;
    match streamed {
        Ok(response) => assert_eq!(response.status().as_u16(), 413),
        Err(e) => assert!(e.is_request() || e.is_body(), "{e:?}"),
    }
    let elsewhere = url.replace("/mcp", "/other");
    let (status, _, _) = post(&elsewhere, &[], discover()).await;
    assert_eq!(status, 404);
    served.stop().await;
}
