//! Remote sources as the host sees them: a mirror's (or an MCP skills
//! server's) URL, the label its
//! skills are namespaced under (so they never shadow, nor are shadowed by,
//! another source's), the origins granted to its provider, and how often it
//! is polled. The fetching itself happens inside the remote provider
//! component, through `wasi:http`.

use crate::error::Error;
use crate::model::{Location, Scope};
use crate::provider::ProviderSpec;
use crate::sandbox::{Limits, LoadedComponent, VirtualRoot, origin_of};
use std::sync::Arc;
use std::time::Duration;

/// The guest path a remote provider's skills live under.
pub const ROOT: &str = "/remote";

/// How often a remote index is polled unless told otherwise.
pub const DEFAULT_POLL: Duration = Duration::from_secs(60);
/// Longest a label may be.
pub const MAX_LABEL: usize = 64;

/// How a remote source is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Transport {
    /// A static mirror: `index.json` and the files beside it.
    #[default]
    Mirror,
    /// An MCP server offering the Skills Extension, over Streamable HTTP.
    Mcp,
}

impl Transport {
    /// Its name in settings and `skillhost.toml`.
    pub fn name(self) -> &'static str {
        match self {
            Transport::Mirror => "mirror",
            Transport::Mcp => "mcp",
        }
    }
}

/// One remote mirror or MCP skills server to list skills from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteSource {
    /// The mirror (its folder, or its `index.json`), or the MCP endpoint;
    /// always `http` or `https`.
    pub url: String,
    /// How it is read.
    pub transport: Transport,
    /// Its skills are listed as `label:name`.
    pub label: String,
    /// Origins its provider may reach (by default the URL's own).
    pub origins: Vec<String>,
    /// How often the index is polled while the registry watches.
    pub poll: Duration,
    /// Largest index accepted, in bytes (the provider's default if unset).
    pub max_index_bytes: Option<u64>,
    /// Memory and time limits of its provider.
    pub limits: Limits,
}

/// The limits a remote provider gets by default: room for a large index,
/// and time for a slow network.
pub fn default_limits() -> Limits {
    Limits {
        memory_bytes: 256 * 1024 * 1024,
        deadline: Duration::from_secs(15),
        ..Limits::default()
    }
}

impl RemoteSource {
    /// A source for `url`, labelled with the URL's host and granted only
    /// the URL's origin. `mcp+https://…` (and `mcp+http://…` on loopback)
    /// is an MCP skills server; any other URL a mirror.
    pub fn new(url: &str) -> Result<RemoteSource, Error> {
        let (url, transport) = match url.strip_prefix("mcp+") {
            Some(rest) => (rest, Transport::Mcp),
            None => (url, Transport::Mirror),
        };
        let uri = parse(url)?;
        let origin = origin_of(&uri).ok_or_else(|| invalid(url, "it has no host"))?;
        let source = RemoteSource {
            url: url.to_string(),
            transport,
            label: uri.host().unwrap_or_default().to_ascii_lowercase(),
            origins: vec![origin],
            poll: DEFAULT_POLL,
            max_index_bytes: None,
            limits: default_limits(),
        };
        source.with_transport(transport)
    }

    /// The same source read over `transport`. MCP over plain `http` is
    /// accepted only on loopback: a session and its skills would otherwise
    /// cross the network in the clear.
    pub fn with_transport(mut self, transport: Transport) -> Result<RemoteSource, Error> {
        if transport == Transport::Mcp {
            let uri = parse(&self.url)?;
            if uri.scheme_str() == Some("http") && !is_loopback(uri.host().unwrap_or_default()) {
                return Err(invalid(
                    &self.url,
                    "MCP over plain http is only for loopback; use mcp+https://",
                ));
            }
        }
        self.transport = transport;
        Ok(self)
    }

    /// Parses `--remote` values: `URL` or `LABEL=URL`.
    pub fn from_arg(arg: &str) -> Result<RemoteSource, Error> {
        match arg.split_once('=') {
            Some((label, url)) if !label.contains("://") => RemoteSource::new(url)?.labelled(label),
            _ => RemoteSource::new(arg),
        }
    }

    /// The same source under another label.
    pub fn labelled(mut self, label: &str) -> Result<RemoteSource, Error> {
        check_label(label).map_err(|m| invalid(&self.url, &m))?;
        self.label = label.to_string();
        Ok(self)
    }

    /// The id of its provider.
    pub fn provider_id(&self) -> String {
        format!("remote:{}", self.label)
    }

    /// The folder the mirror's files are under (or the MCP endpoint),
    /// shown as skills' location.
    pub fn shown(&self) -> Location {
        if self.transport == Transport::Mcp {
            return Location::Url(self.url.clone());
        }
        let url = self.url.trim_end_matches('/');
        let folder = match url.rsplit_once('/') {
            Some((folder, file)) if file.ends_with(".json") && folder.contains("://") => folder,
            _ => url,
        };
        Location::Url(folder.to_string())
    }

    /// The specification of its provider: granted its origins and nothing
    /// else; its skills are listed as `label:name`.
    pub fn spec(&self, component: Arc<LoadedComponent>) -> ProviderSpec {
        ProviderSpec {
            settings: self.settings(),
            origins: self.origins.clone(),
            virtual_roots: vec![VirtualRoot {
                guest: ROOT.to_string(),
                shown: self.shown(),
            }],
            namespace: Some(self.label.clone()),
            poll: Some(self.poll),
            limits: self.limits,
            ..ProviderSpec::new(self.provider_id(), Scope::Remote, component)
        }
    }

    /// The settings its provider's `init` receives.
    pub fn settings(&self) -> Vec<(String, String)> {
        let mut settings = vec![
            ("url".to_string(), self.url.clone()),
            ("transport".to_string(), self.transport.name().to_string()),
        ];
        if let Some(max) = self.max_index_bytes {
            settings.push(("max_index_bytes".to_string(), max.to_string()));
        }
        settings
    }
}

fn invalid(url: &str, reason: &str) -> Error {
    Error::Remote {
        url: url.to_string(),
        message: reason.to_string(),
    }
}

/// `localhost`, or an address in 127.0.0.0/8 or `::1`.
fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn parse(url: &str) -> Result<http::Uri, Error> {
    let uri: http::Uri = url
        .parse()
        .map_err(|e| invalid(url, &format!("not a URL: {e}")))?;
    match uri.scheme_str() {
        Some("http" | "https") => Ok(uri),
        _ => Err(invalid(url, "the scheme must be http or https")),
    }
}

/// A label: short, printable, and without the `:` that separates it from
/// the skill's name.
pub fn check_label(label: &str) -> Result<(), String> {
    if label.is_empty() || label.len() > MAX_LABEL {
        return Err(format!("a label has 1 to {MAX_LABEL} characters"));
    }
    if label
        .chars()
        .any(|c| c == ':' || c == '/' || c.is_whitespace() || c.is_control())
    {
        return Err(format!(
            "the label {label:?} may not hold ':', '/', spaces or control characters"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_label_defaults_to_the_host_and_the_grant_to_the_origin() {
        let source = RemoteSource::new("https://Skills.Example.com/team/").unwrap();
        assert_eq!(source.label, "skills.example.com");
        assert_eq!(source.origins, ["https://skills.example.com:443"]);
        assert_eq!(source.provider_id(), "remote:skills.example.com");
        assert_eq!(
            source.shown(),
            Location::Url("https://Skills.Example.com/team".into())
        );
    }

    #[test]
    fn remote_args_take_an_optional_label() {
        let source = RemoteSource::from_arg("team=http://127.0.0.1:8080/m/index.json").unwrap();
        assert_eq!(source.label, "team");
        assert_eq!(source.url, "http://127.0.0.1:8080/m/index.json");
        assert_eq!(source.origins, ["http://127.0.0.1:8080"]);
        assert_eq!(
            source.shown(),
            Location::Url("http://127.0.0.1:8080/m".into())
        );
        let unlabelled = RemoteSource::from_arg("http://h:1/x?a=b").unwrap();
        assert_eq!(unlabelled.label, "h");
    }

    #[test]
    fn mcp_urls_name_the_transport_and_plain_http_only_on_loopback() {
        let source = RemoteSource::from_arg("team=mcp+http://127.0.0.1:9/mcp").unwrap();
        assert_eq!(source.transport, Transport::Mcp);
        assert_eq!(source.url, "http://127.0.0.1:9/mcp");
        assert_eq!(source.label, "team");
        assert_eq!(source.origins, ["http://127.0.0.1:9"]);
        assert!(
            source
                .settings()
                .contains(&("transport".to_string(), "mcp".to_string()))
        );
        assert_eq!(
            source.shown(),
            Location::Url("http://127.0.0.1:9/mcp".into())
        );
        let tls = RemoteSource::new("mcp+https://skills.example.com/mcp").unwrap();
        assert_eq!(tls.label, "skills.example.com");
        let message = RemoteSource::new("mcp+http://skills.example.com/mcp")
            .unwrap_err()
            .to_string();
        assert!(message.contains("only for loopback"), "{message}");
        assert!(RemoteSource::new("mcp+http://localhost:1/mcp").is_ok());
        assert!(RemoteSource::new("mcp+ftp://h/").is_err());
    }

    #[test]
    fn bad_urls_and_labels_are_refused_with_the_reason() {
        for (arg, reason) in [
            ("ftp://h/", "scheme"),
            ("not a url", "not a URL"),
            ("a:b=http://h/", "may not hold"),
            ("=http://h/", "1 to 64"),
        ] {
            let message = RemoteSource::from_arg(arg).unwrap_err().to_string();
            assert!(message.contains(reason), "{arg}: {message}");
        }
    }
}
