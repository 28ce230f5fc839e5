//! The same pages on the 2026-07-28 revision: stateless requests, each
//! carrying its own protocol metadata.

use super::*;

/// The `_meta` a 2026-07-28 request carries.
fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "listing-test", "version": "1"}
    })
}

const MODERN: [(&str, &str); 2] = [
    ("mcp-protocol-version", "2026-07-28"),
    ("mcp-method", "skills/list"),
];

/// A 2026-07-28 `skills/list` after `cursor` with `meta`, no session.
async fn modern_list(session: &Session, id: Value, cursor: Option<&str>, meta: Value) -> Answer {
    let mut params = json!({ "_meta": meta });
    if let Some(c) = cursor {
        params["cursor"] = json!(c);
    }
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "skills/list", "params": params});
    session.post_with(body.to_string(), None, &MODERN).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_cached_page_on_2026_07_28_is_byte_for_byte_what_rmcp_sends() {
    let served = serve_many(30).await;
    let session = Session::open(&served.url).await;
    // An extra `_meta` key rmcp ignores sends the request through rmcp.
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    for round in 1.. {
        let id = json!(format!("modern-{round}"));
        let mut meta = modern_meta();
        if round % 2 == 0 {
            meta["progressToken"] = json!(format!("token-{round}"));
        }
        let mut forced = meta.clone();
        forced[THROUGH_RMCP] = json!(true);
        let fast = modern_list(&session, id.clone(), cursor.as_deref(), meta).await;
        let rmcp = modern_list(&session, id, cursor.as_deref(), forced).await;
        assert_eq!((fast.status, rmcp.status), (200, 200), "{}", rmcp.body);
        assert!(!fast.streamed, "the fast path answers whole");
        assert!(rmcp.streamed, "rmcp streams its answer");
        assert_eq!(fast.body, rmcp.body, "page {round}, framing and all");
        let result = fast.result();
        assert_eq!(result["resultType"], json!("complete"));
        assert_eq!(result["ttlMs"], json!(60_000));
        assert_eq!(result["cacheScope"], json!("private"));
        for skill in result["skills"].as_array().unwrap() {
            names.push(skill["frontmatter"]["name"].as_str().unwrap().to_string());
        }
        match result.get("nextCursor").and_then(Value::as_str) {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    let expected: Vec<String> = (0..30).map(|i| format!("skill-{i:03}")).collect();
    assert_eq!(names, expected);
    // rmcp's own 2026-07-28 client reads every page.
    let client = modern(&served.url).await;
    assert_eq!(client.list_all_skills().await.unwrap().len(), 30);
    client.cancel().await.unwrap();
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unusual_2026_07_28_listing_requests_are_left_to_rmcp() {
    let served = serve_many(10).await;
    let session = Session::open(&served.url).await;
    let plain = modern_list(&session, json!(1), None, modern_meta()).await;
    assert!(!plain.streamed && plain.status == 200, "{}", plain.body);

    // Metadata rmcp refuses or weighs: its answer, streamed or an error.
    let mut no_capabilities = modern_meta();
    no_capabilities
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientCapabilities");
    let mut older = modern_meta();
    older["io.modelcontextprotocol/protocolVersion"] = json!("2025-11-25");
    let mut bad_info = modern_meta();
    bad_info["io.modelcontextprotocol/clientInfo"] = json!(7);
    let mut log_level = modern_meta();
    log_level["io.modelcontextprotocol/logLevel"] = json!("debug");
    for meta in [no_capabilities, older, bad_info, log_level, json!({})] {
        let answer = modern_list(&session, json!(2), None, meta.clone()).await;
        assert!(
            answer.streamed || answer.status != 200 || answer.message().contains("\"error\""),
            "{meta}: {}",
            answer.body
        );
    }
    // A cursor rmcp does not know: its invalid-params error.
    let garbage = modern_list(&session, json!(3), Some("garbage"), modern_meta()).await;
    assert!(garbage.message().contains("-32602"), "{}", garbage.body);

    // Headers: a method that does not match, a session id, another Mcp-*
    // header.
    let body = json!({"jsonrpc": "2.0", "id": 4, "method": "skills/list",
        "params": {"_meta": modern_meta()}})
    .to_string();
    let cases: Vec<Vec<(&str, &str)>> = vec![
        vec![("mcp-method", "tools/list")],
        vec![("mcp-session-id", session.id.as_str())],
        vec![("mcp-name", "c2tpbGxz")],
    ];
    for extra in cases {
        let headers: Vec<(&str, &str)> = MODERN.iter().copied().chain(extra.clone()).collect();
        let answer = session.post_with(body.clone(), None, &headers).await;
        assert!(
            answer.streamed || answer.status != 200,
            "{extra:?}: {}",
            answer.body
        );
    }
    served.stop().await;
}
