//! Many sessions at once, and clients that go away mid-response: a
//! client's disconnect costs no other session anything.

use crate::support::*;
use rmcp::model::ReadResourceRequestParams;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_concurrent_sessions_are_served_and_all_hear_a_change() {
    let served = Served::start(&[
        ("alpha/SKILL.md", skill("alpha", "The first").as_bytes()),
        ("beta/SKILL.md", skill("beta", "The second").as_bytes()),
    ])
    .await;
    let mut connecting = tokio::task::JoinSet::new();
    for _ in 0..100 {
        let url = served.url.clone();
        connecting.spawn(async move {
            let recorder = Recorder::default();
            let client = legacy_with(&url, None, recorder.clone()).await;
            assert_eq!(client.list_all_skills().await.unwrap().len(), 2);
            (client, recorder)
        });
    }
    let mut sessions = Vec::new();
    while let Some(joined) = connecting.join_next().await {
        sessions.push(joined.unwrap());
    }
    assert_eq!(sessions.len(), 100);
    // And a hundred stateless requests at once beside them.
    let mut requests = tokio::task::JoinSet::new();
    for _ in 0..100 {
        let url = served.url.clone();
        requests.spawn(async move {
            let client = modern(&url).await;
            let n = client.list_all_skills().await.unwrap().len();
            client.cancel().await.unwrap();
            n
        });
    }
    while let Some(n) = requests.join_next().await {
        assert_eq!(n.unwrap(), 2);
    }
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    served.add_skill("gamma", "Told to everyone");
    for (_, recorder) in &sessions {
        recorder.until("resources/list_changed").await;
    }
    for (client, _) in sessions {
        client.cancel().await.unwrap();
    }
    served.stop().await;
}

/// Sends one raw HTTP request and returns the open connection.
async fn raw(url: &str, method: &str, headers: &[(&str, String)], body: &str) -> TcpStream {
    let authority = url.trim_start_matches("http://").trim_end_matches("/mcp");
    let mut stream = TcpStream::connect(authority).await.unwrap();
    let mut head = format!("{method} /mcp HTTP/1.1\r\nHost: {authority}\r\n");
    head.push_str(
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n",
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(head.as_bytes()).await.unwrap();
    stream
}

/// Reads at least `n` bytes (or to the end) from the connection.
async fn some(stream: &mut TcpStream, n: usize) -> Vec<u8> {
    let mut got = Vec::new();
    let mut buffer = vec![0u8; 16 * 1024];
    while got.len() < n {
        let read = tokio::time::timeout(PATIENCE, stream.read(&mut buffer))
            .await
            .expect("the server answers")
            .unwrap();
        if read == 0 {
            break;
        }
        got.extend_from_slice(&buffer[..read]);
    }
    got
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_that_disconnect_mid_response_cost_no_other_session_anything() {
    let big = vec![b'a'; 12 * 1024 * 1024];
    let served = Served::start(&[
        ("alpha/SKILL.md", skill("alpha", "The first").as_bytes()),
        ("alpha/data/big.txt", &big),
    ])
    .await;
    let recorder = Recorder::default();
    let steady = legacy_with(&served.url, None, recorder.clone()).await;
    steady.list_all_skills().await.unwrap();
    let read_big = json!({
        "jsonrpc": "2.0", "id": 7, "method": "resources/read",
        "params": {"uri": "skill://alpha/data/big.txt", "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    })
    .to_string();
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28".to_string()),
        ("Mcp-Method", "resources/read".to_string()),
        ("Mcp-Name", "skill://alpha/data/big.txt".to_string()),
    ];
    for _ in 0..5 {
        let mut stream = raw(&served.url, "POST", &headers, &read_big).await;
        let start = some(&mut stream, 64 * 1024).await;
        assert!(
            start.starts_with(b"HTTP/1.1 200"),
            "{}",
            String::from_utf8_lossy(&start[..64])
        );
        drop(stream); // gone mid-response
    }
    // A 2025-11-25 session whose notification stream is dropped mid-stream.
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "1"}}
    })
    .to_string();
    let mut stream = raw(&served.url, "POST", &[], &initialize).await;
    let answer = String::from_utf8_lossy(&some(&mut stream, 200).await).to_string();
    let session = answer
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("mcp-session-id: ")
                .map(str::to_string)
        })
        .expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    let session_headers = [
        ("Mcp-Session-Id", session.trim().to_string()),
        ("MCP-Protocol-Version", "2025-11-25".to_string()),
    ];
    drop(raw(&served.url, "POST", &session_headers, &initialized).await);
    let mut events = raw(&served.url, "GET", &session_headers, "").await;
    let _ = some(&mut events, 10).await;
    drop(events);

    // Everyone else carries on: the steady session hears a change, and a
    // new one reads the big file whole.
    served.add_skill("beta", "After the disconnects");
    recorder.until("resources/list_changed").await;
    let fresh = modern(&served.url).await;
    let read = fresh
        .read_resource(ReadResourceRequestParams::new("skill://alpha/data/big.txt"))
        .await
        .unwrap();
    assert_eq!(sha256(&bytes_of(&read.contents[0])), sha256(&big));
    assert_eq!(steady.list_all_skills().await.unwrap().len(), 2);
    steady.cancel().await.unwrap();
    fresh.cancel().await.unwrap();
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_past_the_cap_are_refused_and_stateless_clients_still_served() {
    let served = Served::start_with(
        &[("a/SKILL.md", skill("a", "A").as_bytes())],
        Default::default(),
        |mut o| {
            o.max_sessions = 3;
            o
        },
    )
    .await;
    let mut open = Vec::new();
    for _ in 0..3 {
        open.push(legacy(&served.url).await);
    }
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "one-too-many", "version": "1"}}})
    .to_string();
    let mut refused = raw(&served.url, "POST", &[], &initialize).await;
    let answer = String::from_utf8_lossy(&some(&mut refused, 12).await).into_owned();
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    // Stateless requests open no session, so the cap does not stop them,
    // and the open sessions are still answered.
    let modern = modern(&served.url).await;
    assert_eq!(modern.list_all_skills().await.unwrap().len(), 1);
    assert_eq!(open[0].list_all_skills().await.unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_never_arrives_is_answered_408_and_costs_no_one_else() {
    let served = Served::start_with(
        &[("a/SKILL.md", skill("a", "A").as_bytes())],
        Default::default(),
        |mut o| {
            o.body_timeout = std::time::Duration::from_millis(300);
            o
        },
    )
    .await;
    let authority = served
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    let mut slow = TcpStream::connect(&authority).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{{\"jsonrpc\""
    );
    slow.write_all(head.as_bytes()).await.unwrap();
    let other = modern(&served.url).await;
    assert_eq!(other.list_all_skills().await.unwrap().len(), 1);
    let answer = String::from_utf8_lossy(&some(&mut slow, 12).await).into_owned();
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
}
