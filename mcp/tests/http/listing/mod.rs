//! `skills/list` on a 2025-11-25 session, answered from the view's cached
//! pages in front of rmcp: the same bytes rmcp's own path sends, for every
//! page and after a change, and rmcp still answering everything unusual.
//!
//! rmcp's path is reached on purpose with a `_meta` key of no meaning,
//! which the fast path leaves to rmcp and rmcp ignores; which path answered
//! shows in the framing (rmcp streams its answer, and on a 2025-11-25
//! session primes and numbers its events; the fast path writes one whole
//! event).

use crate::support::*;
use serde_json::{Value, json};
use skillhost_mcp::Options;
use std::time::Instant;

/// A `_meta` key of no meaning: rmcp ignores it, the fast path leaves the
/// request to rmcp.
const THROUGH_RMCP: &str = "x-listing-test/through-rmcp";

/// A raw 2025-11-25 session over plain HTTP.
struct Session {
    http: reqwest::Client,
    url: String,
    id: String,
}

/// What came back for one POST.
struct Answer {
    status: u16,
    /// Whether the body came as a stream (rmcp's) rather than whole.
    streamed: bool,
    /// Each SSE event's fields, in order (`data`, `id`, `retry`).
    events: Vec<Vec<(String, String)>>,
    body: String,
}

impl Answer {
    /// The data of the one event carrying a JSON-RPC message.
    fn message(&self) -> String {
        let messages: Vec<String> = self
            .events
            .iter()
            .flat_map(|e| e.iter())
            .filter(|(k, v)| k == "data" && !v.is_empty())
            .map(|(_, v)| v.clone())
            .collect();
        assert_eq!(messages.len(), 1, "one message in {:?}", self.body);
        messages[0].clone()
    }

    fn result(&self) -> Value {
        let message: Value = serde_json::from_str(&self.message()).unwrap();
        message["result"].clone()
    }

    /// Whether rmcp's session stream answered: it primes and numbers events.
    fn by_rmcp(&self) -> bool {
        self.events.iter().flatten().any(|(k, _)| k == "id")
    }
}

/// Headers sent, the status expected, and whether rmcp answers.
type Case<'a> = (Vec<(&'a str, &'a str)>, u16, bool);

fn events(body: &str) -> Vec<Vec<(String, String)>> {
    body.split("\n\n")
        .filter(|e| !e.trim().is_empty())
        .map(|e| {
            e.lines()
                .filter_map(|l| l.split_once(':'))
                .map(|(k, v)| (k.to_string(), v.strip_prefix(' ').unwrap_or(v).to_string()))
                .collect()
        })
        .collect()
}

impl Session {
    async fn open(url: &str) -> Session {
        let http = http();
        let mut session = Session {
            http,
            url: url.to_string(),
            id: String::new(),
        };
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "listing-test", "version": "1"}}});
        let response = session.send(init.to_string(), None).await;
        session.id = response
            .headers()
            .get("mcp-session-id")
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        response.bytes().await.unwrap();
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let id = session.id.clone();
        let done = session.send(initialized.to_string(), Some(&id)).await;
        assert_eq!(done.status(), 202);
        session
    }

    async fn send(&self, body: String, session: Option<&str>) -> reqwest::Response {
        self.send_with(body, session, &[]).await
    }

    /// A POST with the usual headers, `headers` replacing or adding some.
    async fn send_with(
        &self,
        body: String,
        session: Option<&str>,
        headers: &[(&str, &str)],
    ) -> reqwest::Response {
        let mut usual = reqwest::header::HeaderMap::new();
        for (k, v) in [
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
            ("mcp-protocol-version", "2025-11-25"),
        ]
        .iter()
        .chain(headers)
        {
            usual.insert(
                reqwest::header::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        if let Some(id) = session {
            usual.insert("mcp-session-id", id.parse().unwrap());
        }
        self.http
            .post(&self.url)
            .headers(usual)
            .body(body)
            .send()
            .await
            .unwrap()
    }

    async fn post_as(&self, body: String, session: Option<&str>) -> Answer {
        self.post_with(body, session, &[]).await
    }

    async fn post_with(
        &self,
        body: String,
        session: Option<&str>,
        headers: &[(&str, &str)],
    ) -> Answer {
        let response = self.send_with(body, session, headers).await;
        let status = response.status().as_u16();
        let streamed = response
            .headers()
            .get("transfer-encoding")
            .is_some_and(|v| v == "chunked");
        let body = response.text().await.unwrap();
        Answer {
            status,
            streamed,
            events: events(&body),
            body,
        }
    }

    async fn post(&self, body: Value) -> Answer {
        self.post_as(body.to_string(), Some(&self.id)).await
    }

    /// `skills/list` after `cursor`, by the fast path and by rmcp's.
    async fn both(&self, id: Value, cursor: Option<&str>) -> (Answer, Answer) {
        self.both_with(id, cursor, None).await
    }

    /// The same, with `meta` (none: no `_meta` at all).
    async fn both_with(
        &self,
        id: Value,
        cursor: Option<&str>,
        meta: Option<Value>,
    ) -> (Answer, Answer) {
        let mut params = json!({});
        if let Some(c) = cursor {
            params["cursor"] = json!(c);
        }
        if let Some(meta) = &meta {
            params["_meta"] = meta.clone();
        }
        let fast = self
            .post(json!({"jsonrpc": "2.0", "id": id, "method": "skills/list", "params": params}))
            .await;
        let mut forced = meta.unwrap_or_else(|| json!({}));
        forced[THROUGH_RMCP] = json!(true);
        params["_meta"] = forced;
        let rmcp = self
            .post(json!({"jsonrpc": "2.0", "id": id, "method": "skills/list", "params": params}))
            .await;
        (fast, rmcp)
    }

    /// Every page, each compared with rmcp's; the skill names listed.
    async fn whole_listing(&self) -> Vec<String> {
        self.pages().await.concat()
    }

    /// Every page, each compared with rmcp's; the skill names on each.
    async fn pages(&self) -> Vec<Vec<String>> {
        let mut pages = Vec::new();
        let mut cursor: Option<String> = None;
        let mut round = 0;
        loop {
            round += 1;
            // Numeric and string ids both come back as sent.
            let id = if round % 2 == 0 {
                json!(round)
            } else {
                json!(format!("page-{round}"))
            };
            // rmcp's client sends a progress token with every request.
            let meta = (round % 3 == 0).then(|| json!({"progressToken": round}));
            let (fast, rmcp) = self.both_with(id, cursor.as_deref(), meta).await;
            assert_eq!((fast.status, rmcp.status), (200, 200));
            assert!(!fast.streamed && rmcp.streamed);
            assert!(!fast.by_rmcp(), "the fast path answers: {}", fast.body);
            assert!(rmcp.by_rmcp(), "rmcp answers: {}", rmcp.body);
            assert_eq!(fast.message(), rmcp.message(), "page {round}");
            let result = fast.result();
            assert_eq!(result["ttlMs"], json!(60_000));
            assert_eq!(result["cacheScope"], json!("private"));
            assert!(result.get("resultType").is_none(), "a 2025-11-25 result");
            let names: Vec<String> = result["skills"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["frontmatter"]["name"].as_str().unwrap().to_string())
                .collect();
            pages.push(names);
            match result.get("nextCursor").and_then(Value::as_str) {
                Some(next) => cursor = Some(next.to_string()),
                None => break,
            }
        }
        pages
    }
}

fn many(count: usize) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for i in 0..count {
        let name = format!("skill-{i:03}");
        let text = format!(
            "---\nname: {name}\ndescription: \"Generated skill {i}, \\\"quoted\\\" and ünïcode\"\n\
             license: MIT\nmetadata:\n  order: {i}\n  tags: [a, b]\n---\nBody {i}.\n"
        );
        files.push((format!("{name}/SKILL.md"), text.into_bytes()));
        if i % 4 == 0 {
            files.push((format!("{name}/scripts/run.sh"), b"echo hi\n".to_vec()));
        }
    }
    files
}

async fn serve_many(count: usize) -> Served {
    serve_paged(
        count,
        Options {
            page_size: 7,
            ..Options::default()
        },
    )
    .await
}

async fn serve_paged(count: usize, options: Options) -> Served {
    let files = many(count);
    Served::start_with(&borrowed(&files), options, |o| o).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_cached_page_is_byte_for_byte_what_rmcp_sends() {
    let served = serve_many(30).await;
    let session = Session::open(&served.url).await;
    let names = session.whole_listing().await;
    let expected: Vec<String> = (0..30).map(|i| format!("skill-{i:03}")).collect();
    assert_eq!(names, expected);
    // Served again from the same view: the same bytes.
    assert_eq!(session.whole_listing().await, expected);
    // rmcp's own client (a progress token in its `_meta`) reads every page.
    let client = legacy(&served.url).await;
    assert_eq!(client.list_all_skills().await.unwrap().len(), 30);
    client.cancel().await.unwrap();
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_fast_path_off_rmcp_answers_every_listing_with_the_same_pages() {
    let files = many(10);
    let options = Options {
        page_size: 4,
        ..Options::default()
    };
    let served = Served::start_with(&borrowed(&files), options, |mut http| {
        http.fast_listing = false;
        http
    })
    .await;
    let session = Session::open(&served.url).await;
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let (plain, forced) = session.both(json!(names.len()), cursor.as_deref()).await;
        assert!(
            plain.by_rmcp(),
            "rmcp answers a plain request: {}",
            plain.body
        );
        assert_eq!(plain.message(), forced.message());
        let result = plain.result();
        for skill in result["skills"].as_array().unwrap() {
            names.push(skill["frontmatter"]["name"].as_str().unwrap().to_string());
        }
        match result.get("nextCursor").and_then(Value::as_str) {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    let expected: Vec<String> = (0..10).map(|i| format!("skill-{i:03}")).collect();
    assert_eq!(names, expected);
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_bounded_in_bytes_end_where_rmcp_ends_them() {
    let served = serve_paged(
        12,
        Options {
            page_bytes: 1_200,
            ..Options::default()
        },
    )
    .await;
    let session = Session::open(&served.url).await;
    let pages = session.pages().await;
    assert!(pages.len() > 2, "{pages:?}");
    assert!(
        pages.iter().all(|p| !p.is_empty() && p.len() < 7),
        "{pages:?}"
    );
    let expected: Vec<String> = (0..12).map(|i| format!("skill-{i:03}")).collect();
    assert_eq!(pages.concat(), expected);
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_catalog_change_is_listed_from_new_pages() {
    let served = serve_many(10).await;
    let session = Session::open(&served.url).await;
    assert_eq!(session.whole_listing().await.len(), 10);
    let rebuilds = served.live.rebuilds();
    served.add_skill("skill-004a", "Added while served");
    let started = Instant::now();
    while served.live.view().entries.len() != 11 {
        assert!(started.elapsed() < PATIENCE, "the new skill never arrived");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(served.live.rebuilds() > rebuilds);
    let names = session.whole_listing().await;
    assert_eq!(names.len(), 11);
    assert_eq!(names[5], "skill-004a");
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unusual_listing_requests_are_left_to_rmcp() {
    let served = serve_many(10).await;
    let session = Session::open(&served.url).await;
    let list = |params: Value| json!({"jsonrpc": "2.0", "id": 9, "method": "skills/list", "params": params});

    // A cursor rmcp does not know: its error, from rmcp.
    let (fast, rmcp) = session.both(json!(9), Some("garbage")).await;
    assert!(fast.by_rmcp() && rmcp.by_rmcp());
    let error: Value = serde_json::from_str(&fast.message()).unwrap();
    assert_eq!(error["error"]["code"], json!(-32602), "{error}");
    assert_eq!(fast.message(), rmcp.message());

    // A progress token of another shape, other `_meta`: rmcp's.
    for meta in [json!({"progressToken": 1.5}), json!({"other": 1})] {
        let answer = session.post(list(json!({ "_meta": meta }))).await;
        assert!(answer.by_rmcp(), "{meta}: {}", answer.body);
    }

    // Other fields in the params, a float id, a batch: rmcp's.
    let extra = session
        .post(list(json!({"cursor": null, "other": 1})))
        .await;
    assert!(extra.by_rmcp(), "{}", extra.body);
    let float = session
        .post(json!({"jsonrpc": "2.0", "id": 1.5, "method": "skills/list"}))
        .await;
    assert!(float.status != 200 || float.by_rmcp(), "{}", float.body);
    let batch = session.post(json!([list(json!({}))])).await;
    assert!(batch.status != 200 || batch.by_rmcp(), "{}", batch.body);

    // No params at all is the plain first page.
    let bare = session
        .post(json!({"jsonrpc": "2.0", "id": 3, "method": "skills/list"}))
        .await;
    assert!(!bare.by_rmcp());
    let (first, _) = session.both(json!(3), None).await;
    assert_eq!(bare.message(), first.message());

    // Headers rmcp weighs: a foreign Host or Origin is refused, an allowed
    // Origin, a weighted Accept or a newer revision is rmcp's to answer;
    // another spelling of an allowed Host is plain.
    let port = served
        .url
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches("/mcp");
    let local_host = format!("localhost:{port}");
    let local_origin = format!("http://localhost:{port}");
    let body = list(json!({})).to_string();
    let id = Some(session.id.as_str());
    let cases: Vec<Case> = vec![
        (vec![("host", "evil.example.com")], 403, true),
        (vec![("origin", "http://evil.example.com")], 403, true),
        (vec![("origin", local_origin.as_str())], 200, true),
        (vec![("host", local_host.as_str())], 200, false),
        (vec![("accept", "application/json")], 406, true),
        (
            vec![("accept", "application/json;q=1, text/event-stream;q=0")],
            406,
            true,
        ),
        (vec![("content-type", "text/plain")], 415, true),
        (vec![("mcp-protocol-version", "1999-01-01")], 400, true),
    ];
    for (headers, status, by_rmcp) in cases {
        let answer = session.post_with(body.clone(), id, &headers).await;
        assert_eq!(answer.status, status, "{headers:?}: {}", answer.body);
        if status == 200 {
            assert_eq!(answer.by_rmcp(), by_rmcp, "{headers:?}: {}", answer.body);
            assert_eq!(answer.result(), first.result(), "{headers:?}");
        }
    }
    let newer = session
        .post_with(
            body.clone(),
            id,
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "skills/list"),
            ],
        )
        .await;
    assert!(newer.status != 200 || newer.by_rmcp(), "{}", newer.body);

    // No session, or one that ended: rmcp's refusals.
    let body = list(json!({})).to_string();
    let none = session.post_as(body.clone(), None).await;
    assert_eq!(none.status, 400, "{}", none.body);
    let unknown = session.post_as(body.clone(), Some("no-such-session")).await;
    assert_eq!(unknown.status, 404, "{}", unknown.body);
    let ended = session
        .http
        .delete(&session.url)
        .header("mcp-session-id", &session.id)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert!(ended.status().is_success());
    let after = session.post_as(body, Some(&session.id)).await;
    assert_eq!(after.status, 404, "{}", after.body);
    served.stop().await;
}

mod modern;
