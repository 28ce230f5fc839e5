//! A small MCP Streamable HTTP server on loopback, for faults a real
//! skills server will not produce on demand: tampered files, entries that
//! lie about sizes or frontmatter, error results, sessions that expire,
//! answers too late or cut short, listings far too large. It speaks
//! JSON-RPC over real sockets, one answer per connection, as JSON or SSE.

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    /// The JSON-RPC method (empty if the body was not JSON-RPC).
    pub method: String,
    /// Its params.
    pub params: serde_json::Value,
    /// The `Mcp-Session-Id` it carried.
    pub session: Option<String>,
}

/// How one answer goes out.
#[derive(Debug, Clone)]
pub enum Wire {
    /// `application/json`.
    Json,
    /// `text/event-stream`, with a priming event first.
    Sse,
    /// `text/event-stream`, hung up after this many bytes.
    SseCut(usize),
    /// As `Json`, after waiting.
    Late(Duration),
}

/// One skill the server holds: its folder and files.
#[derive(Debug, Clone)]
pub struct SkillFiles {
    /// The folder (`skill://<folder>/SKILL.md`).
    pub folder: String,
    /// Relative path → bytes.
    pub files: BTreeMap<String, Vec<u8>>,
}

/// What the server does, changeable while it runs.
#[derive(Debug, Clone)]
pub struct Behaviour {
    /// The skills.
    pub skills: Vec<SkillFiles>,
    /// Entries a `skills/list` page holds.
    pub page_size: usize,
    /// Offer the Skills Extension in the capabilities.
    pub extension: bool,
    /// Bytes `resources/read` serves instead of the listed ones, by URI.
    pub tampered: BTreeMap<String, Vec<u8>>,
    /// Sizes the listing claims instead of the real ones, by URI.
    pub sizes: BTreeMap<String, u64>,
    /// Frontmatter the listing claims instead of the file's, by folder.
    pub frontmatter: BTreeMap<String, serde_json::Value>,
    /// Folders listed with `"resources": "dynamic"`.
    pub dynamic: Vec<String>,
    /// Methods answered with a JSON-RPC error.
    pub errors: Vec<String>,
    /// How answers to each method go out (default JSON).
    pub wire: BTreeMap<String, Wire>,
    /// A `skills/list` answer of this many bytes instead of the real one.
    pub huge_listing: Option<usize>,
    /// Sessions are forgotten (404) after this many requests each.
    pub session_lifetime: Option<usize>,
}

impl Default for Behaviour {
    fn default() -> Self {
        Behaviour {
            skills: Vec::new(),
            page_size: 100,
            extension: true,
            tampered: BTreeMap::new(),
            sizes: BTreeMap::new(),
            frontmatter: BTreeMap::new(),
            dynamic: Vec::new(),
            errors: Vec::new(),
            wire: BTreeMap::new(),
            huge_listing: None,
            session_lifetime: None,
        }
    }
}

/// A skill of one `SKILL.md` with `name` and `description`, and `extra` files.
pub fn skill(name: &str, description: &str, extra: &[(&str, &[u8])]) -> SkillFiles {
    let mut files = BTreeMap::new();
    files.insert(
        "SKILL.md".to_string(),
        crate::skill_md(name, description).into_bytes(),
    );
    for (path, bytes) in extra {
        files.insert(path.to_string(), bytes.to_vec());
    }
    SkillFiles {
        folder: name.to_string(),
        files,
    }
}

struct State {
    behaviour: Behaviour,
    seen: Vec<Seen>,
    /// Live sessions and the requests each has made.
    sessions: BTreeMap<String, usize>,
    next_session: usize,
}

/// The running server; stops accepting when dropped.
pub struct McpServer {
    port: u16,
    stop: Arc<AtomicBool>,
    open: Arc<AtomicUsize>,
    state: Arc<Mutex<State>>,
}

impl McpServer {
    /// Serves `behaviour` at `/mcp` on a loopback port.
    pub fn start(behaviour: Behaviour) -> McpServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let port = listener.local_addr().expect("local address").port();
        listener.set_nonblocking(true).expect("non-blocking accept");
        let stop = Arc::new(AtomicBool::new(false));
        let open = Arc::new(AtomicUsize::new(0));
        let state = Arc::new(Mutex::new(State {
            behaviour,
            seen: Vec::new(),
            sessions: BTreeMap::new(),
            next_session: 0,
        }));
        {
            let (stop, open, state) = (stop.clone(), open.clone(), state.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Acquire) {
                    match listener.accept() {
                        Ok((stream, _)) => {
                            let (open, state) = (open.clone(), state.clone());
                            open.fetch_add(1, Ordering::AcqRel);
                            std::thread::spawn(move || {
                                serve(stream, &state);
                                open.fetch_sub(1, Ordering::AcqRel);
                            });
                        }
                        Err(_) => std::thread::sleep(Duration::from_millis(2)),
                    }
                }
            });
        }
        McpServer {
            port,
            stop,
            open,
            state,
        }
    }

    /// The endpoint (`http://127.0.0.1:<port>/mcp`).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// The origin (`http://127.0.0.1:<port>`).
    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Changes what the server does from now on.
    pub fn change(&self, f: impl FnOnce(&mut Behaviour)) {
        let mut state = self.state.lock().expect("server state");
        f(&mut state.behaviour);
    }

    /// Forgets every session, as a restarted server would.
    pub fn forget_sessions(&self) {
        self.state.lock().expect("server state").sessions.clear();
    }

    /// The methods requested so far, in order.
    pub fn methods(&self) -> Vec<String> {
        self.seen().into_iter().map(|s| s.method).collect()
    }

    /// The requests so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.state
            .lock()
            .map(|s| s.seen.clone())
            .unwrap_or_default()
    }
}

impl Drop for McpServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        for _ in 0..500 {
            if self.open.load(Ordering::Acquire) == 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

fn sha256(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// The frontmatter of `SKILL.md` bytes as JSON (the fixtures' are flat).
fn frontmatter_of(bytes: &[u8]) -> serde_json::Value {
    let text = String::from_utf8_lossy(bytes);
    let mut map = serde_json::Map::new();
    let inner = text
        .strip_prefix("---\n")
        .and_then(|t| t.split_once("\n---\n"))
        .map(|(f, _)| f)
        .unwrap_or_default();
    for line in inner.lines() {
        if let Some((k, v)) = line.split_once(": ") {
            map.insert(k.to_string(), serde_json::Value::String(v.to_string()));
        }
    }
    serde_json::Value::Object(map)
}

fn entry(b: &Behaviour, skill: &SkillFiles, listing: bool) -> serde_json::Value {
    let uri = format!("skill://{}/SKILL.md", skill.folder);
    let frontmatter = b
        .frontmatter
        .get(&skill.folder)
        .cloned()
        .unwrap_or_else(|| frontmatter_of(&skill.files["SKILL.md"]));
    let resources = if listing && b.dynamic.contains(&skill.folder) {
        serde_json::json!("dynamic")
    } else {
        skill
            .files
            .iter()
            .map(|(path, bytes)| {
                let ruri = format!("skill://{}/{path}", skill.folder);
                let size = b.sizes.get(&ruri).copied().unwrap_or(bytes.len() as u64);
                serde_json::json!({"uri": ruri, "digest": sha256(bytes), "size": size})
            })
            .collect()
    };
    serde_json::json!({"uri": uri, "frontmatter": frontmatter, "resources": resources})
}

fn error(code: i64, message: &str) -> serde_json::Value {
    serde_json::json!({"code": code, "message": message})
}

/// The result (or error) of one request.
fn respond(
    b: &Behaviour,
    method: &str,
    params: &serde_json::Value,
) -> Result<serde_json::Value, serde_json::Value> {
    if b.errors.iter().any(|m| m == method) {
        return Err(error(-32603, &format!("{method} failed on purpose")));
    }
    match method {
        "initialize" => {
            let mut capabilities = serde_json::json!({"resources": {}});
            if b.extension {
                capabilities["extensions"] =
                    serde_json::json!({"io.modelcontextprotocol/skills": {}});
            }
            Ok(serde_json::json!({
                "protocolVersion": "2025-11-25",
                "capabilities": capabilities,
                "serverInfo": {"name": "faults", "version": "0"},
            }))
        }
        "skills/list" => {
            let start = params["cursor"]
                .as_str()
                .and_then(|c| c.parse::<usize>().ok())
                .unwrap_or(0);
            let end = (start + b.page_size).min(b.skills.len());
            let skills: Vec<serde_json::Value> = b.skills[start.min(end)..end]
                .iter()
                .map(|s| entry(b, s, true))
                .collect();
            let mut result = serde_json::json!({"skills": skills, "ttlMs": 0});
            if end < b.skills.len() {
                result["nextCursor"] = serde_json::json!(end.to_string());
            }
            Ok(result)
        }
        "skills/get" => {
            let uri = params["uri"].as_str().unwrap_or_default();
            b.skills
                .iter()
                .find(|s| format!("skill://{}/SKILL.md", s.folder) == uri)
                .map(|s| serde_json::json!({"skill": entry(b, s, false)}))
                .ok_or_else(|| error(-32602, "no such skill"))
        }
        "resources/read" => {
            let uri = params["uri"].as_str().unwrap_or_default();
            let bytes = b.tampered.get(uri).cloned().or_else(|| {
                let rest = uri.strip_prefix("skill://")?;
                b.skills.iter().find_map(|s| {
                    let path = rest.strip_prefix(&s.folder)?.strip_prefix('/')?;
                    s.files.get(path).cloned()
                })
            });
            match bytes {
                Some(bytes) => Ok(match String::from_utf8(bytes.clone()) {
                    Ok(text) => serde_json::json!({"contents": [{"uri": uri, "text": text}]}),
                    Err(_) => {
                        serde_json::json!({"contents": [{"uri": uri, "blob": base64(&bytes)}]})
                    }
                }),
                None => Err(error(-32002, "resource not found")),
            }
        }
        other => Err(error(-32601, &format!("no method {other}"))),
    }
}

fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | ((b as u32) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn serve(stream: TcpStream, state: &Mutex<State>) {
    let _ = stream.set_nonblocking(false);
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    let mut length = 0usize;
    let mut chunked = false;
    let mut session = None;
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) if line == "\r\n" || line == "\n" => break,
            Ok(_) => {
                if let Some((name, value)) = line.split_once(':') {
                    let value = value.trim().to_string();
                    match name.trim().to_ascii_lowercase().as_str() {
                        "content-length" => length = value.parse().unwrap_or(0),
                        "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
                        "mcp-session-id" => session = Some(value),
                        _ => {}
                    }
                }
            }
        }
    }
    let body = if chunked {
        match read_chunked(&mut reader) {
            Some(body) => body,
            None => return,
        }
    } else {
        let mut body = vec![0; length.min(1 << 20)];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        body
    };
    let message: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let method = message["method"].as_str().unwrap_or_default().to_string();
    let params = message["params"].clone();
    let id = message.get("id").cloned();
    let (status, headers, payload, wire, huge) = {
        let Ok(mut s) = state.lock() else { return };
        s.seen.push(Seen {
            method: method.clone(),
            params: params.clone(),
            session: session.clone(),
        });
        let wire = s.behaviour.wire.get(&method).cloned().unwrap_or(Wire::Json);
        let mut headers = Vec::new();
        // Sessions: initialize opens one; anything else must name a live one.
        if method == "initialize" {
            s.next_session += 1;
            let sid = format!("session-{}", s.next_session);
            s.sessions.insert(sid.clone(), 0);
            headers.push(("mcp-session-id".to_string(), sid));
        } else {
            let lifetime = s.behaviour.session_lifetime;
            let live = match session.as_ref().and_then(|sid| s.sessions.get_mut(sid)) {
                Some(count) => {
                    *count += 1;
                    lifetime.is_none_or(|l| *count <= l)
                }
                None => false,
            };
            if !live {
                if let Some(sid) = &session {
                    s.sessions.remove(sid);
                }
                drop(s);
                write_answer(stream, 404, &[], b"{}".to_vec(), &Wire::Json);
                return;
            }
        }
        let Some(id) = id else {
            drop(s);
            write_answer(stream, 202, &headers, Vec::new(), &Wire::Json);
            return;
        };
        let huge = (method == "skills/list")
            .then_some(s.behaviour.huge_listing)
            .flatten();
        let payload = match respond(&s.behaviour, &method, &params) {
            Ok(result) => serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(error) => serde_json::json!({"jsonrpc": "2.0", "id": id, "error": error}),
        };
        (200, headers, payload, wire, huge.map(|size| (size, id)))
    };
    let mut bytes = payload.to_string().into_bytes();
    if let Some((size, id)) = huge {
        bytes = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"skills":["#).into_bytes();
        bytes.resize(size, b' ');
        bytes.extend_from_slice(b"]}}");
    }
    write_answer(stream, status, &headers, bytes, &wire);
}

fn read_chunked(reader: &mut impl BufRead) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let size = usize::from_str_radix(line.trim().split(';').next()?, 16).ok()?;
        if size == 0 {
            let mut end = String::new();
            reader.read_line(&mut end).ok()?;
            return Some(body);
        }
        if body.len() + size > 1 << 20 {
            return None;
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..]).ok()?;
        let mut crlf = [0; 2];
        reader.read_exact(&mut crlf).ok()?;
    }
}

fn write_answer(
    mut stream: TcpStream,
    status: u16,
    headers: &[(String, String)],
    body: Vec<u8>,
    wire: &Wire,
) {
    let extra: String = headers
        .iter()
        .map(|(n, v)| format!("{n}: {v}\r\n"))
        .collect();
    match wire {
        Wire::Late(wait) => {
            std::thread::sleep(*wait);
            write_answer(stream, status, headers, body, &Wire::Json);
        }
        Wire::Json => {
            let head = format!(
                "HTTP/1.1 {status} X\r\ncontent-length: {}\r\ncontent-type: application/json\r\n{extra}connection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
        }
        Wire::Sse | Wire::SseCut(_) => {
            let mut events = b"data: \nid: 0\nretry: 3000\n\n".to_vec();
            events.extend_from_slice(b"data: ");
            events.extend_from_slice(&body);
            events.extend_from_slice(b"\nid: 1\n\n");
            let (events, cut) = match wire {
                Wire::SseCut(n) => (events[..(*n).min(events.len())].to_vec(), true),
                _ => (events, false),
            };
            // Chunked, as a streaming server sends it; a cut stream never
            // sends the last chunk.
            let head = format!(
                "HTTP/1.1 {status} OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n{extra}connection: close\r\n\r\n"
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(format!("{:x}\r\n", events.len()).as_bytes());
            let _ = stream.write_all(&events);
            let _ = stream.write_all(b"\r\n");
            if !cut {
                let _ = stream.write_all(b"0\r\n\r\n");
            }
            let _ = stream.flush();
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
    }
}
