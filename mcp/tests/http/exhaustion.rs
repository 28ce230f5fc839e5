//! Nothing a client sends makes the server hold memory without bound: a
//! client that stops reading is cut off after the write timeout and the
//! share of the read budget its answer held is freed; reads beyond the
//! budget are refused 503 instead of queued in memory; a file over the
//! read cap is refused with its size; forged `skills/list` cursors are
//! answered without being cached; listen filters are de-duplicated and
//! capped, and listen streams are capped; malformed JSON is a parse error.

use crate::support::*;
use serde_json::{Value, json};
use skillhost_mcp::Options;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The `_meta` a 2026-07-28 request carries.
fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "exhaustion-test", "version": "1"}
    })
}

/// A 2026-07-28 request (no session) as raw HTTP/1.1.
fn raw_request(port: u16, method: &str, mut params: Value) -> Vec<u8> {
    let name = name_header(&params)
        .map(|n| format!("Mcp-Name: {n}\r\n"))
        .unwrap_or_default();
    params["_meta"] = meta();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: {method}\r\n{name}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// The `Mcp-Name` a 2026-07-28 request naming a resource carries.
fn name_header(params: &Value) -> Option<String> {
    params
        .get("uri")
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// The JSON-RPC message of an answer, sent as JSON or as one SSE event.
fn message(body: &str) -> Value {
    let data = body
        .lines()
        .find_map(|l| l.strip_prefix("data: "))
        .unwrap_or(body);
    serde_json::from_str(data).unwrap_or_else(|e| panic!("{e}: {body}"))
}

fn port(url: &str) -> u16 {
    url.trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/mcp")
        .parse()
        .unwrap()
}

/// The status and body of one 2026-07-28 request sent with reqwest.
async fn send(url: &str, method: &str, mut params: Value) -> (u16, String) {
    let name = name_header(&params);
    params["_meta"] = meta();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut request = http().post(url);
    if let Some(name) = name {
        request = request.header("Mcp-Name", name);
    }
    let response = request
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", method)
        .body(body.to_string())
        .timeout(PATIENCE)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap_or_default())
}

/// Reads what `stream` gives until it ends or fails; how many bytes came.
async fn drain(stream: &mut TcpStream) -> usize {
    let mut total = 0;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match tokio::time::timeout(PATIENCE, stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return total,
            Ok(Ok(n)) => total += n,
            Err(_) => panic!("the connection was neither closed nor done after {PATIENCE:?}"),
        }
    }
}

const BIG: usize = 12 << 20;

async fn serve_big(
    http: impl FnOnce(skillhost_mcp::HttpOptions) -> skillhost_mcp::HttpOptions,
) -> Served {
    let big = vec![b'a'; BIG];
    Served::start_with(
        &[
            (
                "big/SKILL.md",
                skill("big", "Holds a big reference").as_bytes(),
            ),
            ("big/references/big.txt", &big),
        ],
        Options::default(),
        http,
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stops_reading_is_cut_off_and_reads_past_the_budget_get_503() {
    let served = serve_big(|mut o| {
        o.write_timeout = Duration::from_secs(1);
        // One read of the big file fits; a second waits, then is refused.
        o.max_pending_read_bytes = 48 << 20;
        o.read_wait = Duration::from_millis(300);
        o
    })
    .await;
    let port = port(&served.url);
    let uri = "skill://big/references/big.txt";
    let mut stalled = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    stalled
        .write_all(&raw_request(port, "resources/read", json!({"uri": uri})))
        .await
        .unwrap();
    // Let it be answered into the socket, which nobody reads.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (status, body) = send(&served.url, "resources/read", json!({"uri": uri})).await;
    assert_eq!(
        status, 503,
        "the budget is held by the stalled answer: {body}"
    );
    assert!(body.contains("have not read them"), "{body}");
    // Past the write timeout the stalled connection is closed: reading now
    // gets what the socket buffers held and then the end, not the answer.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let received = drain(&mut stalled).await;
    assert!(
        received < BIG,
        "the stalled answer was cut off, {received} bytes came"
    );
    // Its share is free again.
    let started = Instant::now();
    let (status, body) = send(&served.url, "resources/read", json!({"uri": uri})).await;
    assert_eq!(status, 200, "{}", &body[..body.len().min(300)]);
    assert!(
        body.len() > BIG,
        "the whole file came once the budget was free"
    );
    assert!(started.elapsed() < PATIENCE);
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_over_the_read_cap_is_refused_with_its_size() {
    let served = Served::start_with(
        &[
            (
                "big/SKILL.md",
                skill("big", "Holds a big reference").as_bytes(),
            ),
            ("big/references/big.txt", &vec![b'a'; 300_000]),
        ],
        Options {
            max_read_bytes: 100_000,
            ..Options::default()
        },
        |o| o,
    )
    .await;
    let (status, body) = send(
        &served.url,
        "resources/read",
        json!({"uri": "skill://big/references/big.txt"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("is 300000 bytes") && body.contains("at most 100000"),
        "{body}"
    );
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_skills_list_cursors_are_answered_but_only_page_boundaries_are_cached() {
    let files: Vec<(String, String)> = (0..40)
        .map(|i| {
            (
                format!("s{i:02}/SKILL.md"),
                skill(&format!("s{i:02}"), "A skill"),
            )
        })
        .collect();
    let files: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_bytes()))
        .collect();
    let served = Served::start_with(
        &files,
        Options {
            page_size: 10,
            ..Options::default()
        },
        |o| o,
    )
    .await;
    // The honest walk: four pages, each cached.
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let (status, body) = send(&served.url, "skills/list", params).await;
        assert_eq!(status, 200, "{body}");
        pages += 1;
        match message(&body)["result"]["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    assert_eq!(pages, 4);
    let cached = served.live.view().cached_pages();
    assert_eq!(cached, 4, "one per page walked");
    // A cursor after every skill: each answered, none kept.
    for i in 0..40 {
        let forged = skillhost_mcp::uri::cursor("skills", &format!("skill://s{i:02}/SKILL.md"));
        let (status, body) = send(&served.url, "skills/list", json!({"cursor": forged})).await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("\"skills\""), "{body}");
    }
    assert_eq!(
        served.live.view().cached_pages(),
        cached,
        "forged starts are not cached"
    );
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listen_filters_are_deduplicated_capped_and_listen_streams_are_capped() {
    let served = Served::start_with(
        &[("alpha/SKILL.md", skill("alpha", "The first").as_bytes())],
        Options::default(),
        |mut o| {
            o.max_listen_streams = 1;
            o
        },
    )
    .await;
    let port = port(&served.url);
    let uri = "skill://alpha/SKILL.md";
    let copies = vec![uri; 20_000];
    let filter = json!({"notifications": {"resourceSubscriptions": copies}});
    let mut stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    stream
        .write_all(&raw_request(port, "subscriptions/listen", filter))
        .await
        .unwrap();
    // The acknowledgement names the URI once, not 20,000 times.
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    let started = Instant::now();
    while !String::from_utf8_lossy(&head).contains("subscriptions/acknowledged") {
        assert!(
            started.elapsed() < PATIENCE,
            "no acknowledgement: {}",
            String::from_utf8_lossy(&head)
        );
        let n = tokio::time::timeout(PATIENCE, stream.read(&mut buf))
            .await
            .unwrap()
            .unwrap();
        assert!(n > 0, "closed: {}", String::from_utf8_lossy(&head));
        head.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&head);
    assert_eq!(text.matches(uri).count(), 1, "{text}");
    // A second stream is one too many while the first is open.
    let (status, body) = send(
        &served.url,
        "subscriptions/listen",
        json!({"notifications": {}}),
    )
    .await;
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("listen streams"), "{body}");
    // Too many distinct URIs are refused with the cap.
    drop(stream);
    let distinct: Vec<String> = (0..=skillhost_mcp::http::MAX_LISTEN_URIS)
        .map(|i| format!("skill://x{i}/SKILL.md"))
        .collect();
    let started = Instant::now();
    let refused = loop {
        let (status, body) = send(
            &served.url,
            "subscriptions/listen",
            json!({"notifications": {"resourceSubscriptions": distinct}}),
        )
        .await;
        // The closed stream's slot frees once the server sees it gone.
        if status != 503 || started.elapsed() > PATIENCE {
            break (status, body);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(refused.0, 200, "{}", refused.1);
    assert!(
        refused.1.contains("-32602") && refused.1.contains("at most 4096"),
        "{}",
        refused.1
    );
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_json_gets_400_with_the_parse_error() {
    let served = Served::start(&[("alpha/SKILL.md", skill("alpha", "The first").as_bytes())]).await;
    let response = http()
        .post(&served.url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], -32700, "{body}");
    assert_eq!(body["id"], Value::Null);
    served.stop().await;
}
