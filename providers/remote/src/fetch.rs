//! One HTTP GET or POST through `wasi:http`, bounded in size. The host decides
//! which origins are reachable and how long a request may wait.

use wasip2::http::outgoing_handler;
use wasip2::http::types::{Fields, Method, OutgoingBody, OutgoingRequest, Scheme};

/// What came back.
pub struct Response {
    /// The HTTP status.
    pub status: u16,
    /// The headers, names in lowercase.
    pub headers: Vec<(String, String)>,
    /// The body (empty for 304).
    pub body: Vec<u8>,
}

impl Response {
    /// The first value of header `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A URL split the way `wasi:http` wants it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    /// `http` or `https`.
    pub scheme: String,
    /// `host[:port]`.
    pub authority: String,
    /// The path, starting with `/`.
    pub path: String,
}

impl Url {
    /// Parses `scheme://authority/path`.
    pub fn parse(text: &str) -> Result<Url, String> {
        let (scheme, rest) = text
            .split_once("://")
            .ok_or_else(|| format!("{text:?} is not a URL"))?;
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return Err(format!("{text:?}: only http and https are supported"));
        }
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        if authority.is_empty() {
            return Err(format!("{text:?} has no host"));
        }
        Ok(Url {
            scheme,
            authority: authority.to_string(),
            path: path.to_string(),
        })
    }

    /// This URL with `relative` appended to its folder.
    pub fn join(&self, relative: &str) -> Url {
        let folder = match self.path.rfind('/') {
            Some(i) => &self.path[..=i],
            None => "/",
        };
        Url {
            path: format!("{folder}{}", relative.trim_start_matches('/')),
            ..self.clone()
        }
    }

    /// The URL as text.
    pub fn text(&self) -> String {
        format!("{}://{}{}", self.scheme, self.authority, self.path)
    }
}

/// GETs `url`, sending `If-None-Match` when an ETag is known, reading at
/// most `limit` bytes of body.
pub fn get(url: &Url, etag: Option<&str>, limit: u64) -> Result<Response, String> {
    let mut headers = vec![("accept", "*/*")];
    if let Some(tag) = etag {
        headers.push(("if-none-match", tag));
    }
    send(&Method::Get, url, &headers, None, limit)
}

/// POSTs `body` to `url` with `headers`, reading at most `limit` bytes of
/// the answer.
pub fn post(
    url: &Url,
    headers: &[(&str, &str)],
    body: &[u8],
    limit: u64,
) -> Result<Response, String> {
    // A declared length: some servers refuse chunked request bodies.
    let length = body.len().to_string();
    let mut all = headers.to_vec();
    all.push(("content-length", &length));
    send(&Method::Post, url, &all, Some(body), limit)
}

fn send(
    method: &Method,
    url: &Url,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
    limit: u64,
) -> Result<Response, String> {
    let list: Vec<(String, Vec<u8>)> = headers
        .iter()
        .map(|(n, v)| (n.to_string(), v.as_bytes().to_vec()))
        .collect();
    let fields = Fields::from_list(&list).map_err(|e| format!("bad request header: {e:?}"))?;
    let request = OutgoingRequest::new(fields);
    let scheme = if url.scheme == "https" {
        Scheme::Https
    } else {
        Scheme::Http
    };
    request
        .set_method(method)
        .and_then(|()| request.set_scheme(Some(&scheme)))
        .and_then(|()| request.set_authority(Some(&url.authority)))
        .and_then(|()| request.set_path_with_query(Some(&url.path)))
        .map_err(|()| format!("{}: not a valid request", url.text()))?;
    let outgoing = match body {
        Some(_) => Some(
            request
                .body()
                .map_err(|()| format!("{}: no request body", url.text()))?,
        ),
        None => None,
    };
    let pending =
        outgoing_handler::handle(request, None).map_err(|e| format!("{}: {e:?}", url.text()))?;
    if let (Some(outgoing), Some(bytes)) = (outgoing, body) {
        let stream = outgoing
            .write()
            .map_err(|()| format!("{}: the request body cannot be written", url.text()))?;
        // `blocking-write-and-flush` takes at most 4096 bytes at a time.
        for chunk in bytes.chunks(4096) {
            stream
                .blocking_write_and_flush(chunk)
                .map_err(|e| format!("{}: the request body broke off: {e:?}", url.text()))?;
        }
        drop(stream);
        OutgoingBody::finish(outgoing, None)
            .map_err(|e| format!("{}: the request body broke off: {e:?}", url.text()))?;
    }
    pending.subscribe().block();
    let response = match pending.get() {
        Some(Ok(Ok(response))) => response,
        Some(Ok(Err(e))) => return Err(format!("{}: {e:?}", url.text())),
        Some(Err(())) | None => return Err(format!("{}: no response", url.text())),
    };
    let status = response.status();
    let headers = response
        .headers()
        .entries()
        .into_iter()
        .filter_map(|(n, v)| Some((n.to_ascii_lowercase(), String::from_utf8(v).ok()?)))
        .collect();
    let mut body = Vec::new();
    if status != 304 {
        let incoming = response
            .consume()
            .map_err(|()| format!("{}: no body", url.text()))?;
        let stream = incoming
            .stream()
            .map_err(|()| format!("{}: no body stream", url.text()))?;
        loop {
            match stream.blocking_read(64 * 1024) {
                Ok(chunk) => {
                    body.extend_from_slice(&chunk);
                    if body.len() as u64 > limit {
                        return Err(format!("{}: larger than {limit} bytes", url.text()));
                    }
                }
                Err(wasip2::io::streams::StreamError::Closed) => break,
                Err(e) => return Err(format!("{}: the body broke off: {e:?}", url.text())),
            }
        }
    }
    Ok(Response {
        status,
        headers,
        body,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_and_join() {
        let base = Url::parse("http://127.0.0.1:8080/mirror/").unwrap();
        assert_eq!(base.authority, "127.0.0.1:8080");
        assert_eq!(
            base.join("index.json").text(),
            "http://127.0.0.1:8080/mirror/index.json"
        );
        let file = Url::parse("https://h/m/index.json").unwrap();
        assert_eq!(file.join("a/SKILL.md").text(), "https://h/m/a/SKILL.md");
        assert!(Url::parse("ftp://x/").is_err());
    }
}
