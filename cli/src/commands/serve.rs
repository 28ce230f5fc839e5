//! `skillhost serve`: the live catalog as an MCP server, on stdio or over
//! Streamable HTTP.

use crate::args::{ListingArgs, SourceArgs, StateArgs};
use crate::context::{Ctx, usage_store};
use anyhow::{Context as _, Result, bail};
use skillhost::registry::watch::WatchOptions;
use skillhost_mcp::{HttpOptions, HttpServer, Live, Options, http::read_token, serve_stdio};
use skillhost_usage::curator::writable_roots;
use skillhost_usage::runner::{Runner, RunnerConfig};
use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// What `serve` was asked.
pub struct Args<'a> {
    pub sources: &'a SourceArgs,
    pub listing: &'a ListingArgs,
    pub http: Option<&'a str>,
    pub token_file: Option<&'a Path>,
    pub allow_hosts: Vec<String>,
    pub rmcp_listing: bool,
    pub window: u64,
    pub page_size: usize,
    pub ttl_ms: u64,
    pub state: &'a StateArgs,
    pub json: bool,
}

/// `IP:PORT`, `localhost:PORT`, or a bare port on loopback.
pub fn parse_addr(text: &str) -> Result<SocketAddr> {
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::from((Ipv4Addr::LOCALHOST, port)));
    }
    if let Some(port) = text.strip_prefix("localhost:")
        && let Ok(port) = port.parse::<u16>()
    {
        return Ok(SocketAddr::from((Ipv4Addr::LOCALHOST, port)));
    }
    text.parse().with_context(|| {
        format!("--http {text:?}: expected IP:PORT (e.g. 127.0.0.1:8765) or a port")
    })
}

pub fn run(ctx: &Ctx, a: Args<'_>) -> Result<ExitCode> {
    let http = match a.http {
        Some(text) => {
            let mut options = HttpOptions::new(parse_addr(text)?);
            options.token = a.token_file.map(read_token).transpose()?;
            options.allowed_hosts = a.allow_hosts;
            options.fast_listing = !a.rmcp_listing;
            if !options.addr.ip().is_loopback() && options.token.is_none() {
                bail!(
                    "--http {}: not a loopback address, so --token-file is required (every \
                     request must then carry `Authorization: Bearer <token>`)",
                    options.addr
                );
            }
            Some(options)
        }
        None => None,
    };
    let registry = Arc::new(ctx.registry(a.sources)?);
    // Invocations are recorded and usage reviewed while idle, as `invoke`
    // and `watch` do; a store that cannot be opened costs that, not the
    // server.
    let usage = match usage_store(a.state) {
        Ok(store) => Some(Arc::new(store)),
        Err(e) => {
            crate::output::eprint_text(&format!("skillhost: warning: usage not recorded: {e:#}"));
            None
        }
    };
    let _runner = usage.as_ref().map(|store| {
        let catalog = registry.clone();
        Runner::new(
            store.clone(),
            writable_roots(&registry),
            RunnerConfig::default(),
        )
        .spawn(move || catalog.snapshot())
    });
    let options = Options {
        watch: WatchOptions {
            window: Duration::from_millis(a.window),
            ..WatchOptions::default()
        },
        render: ctx.render_options(a.listing),
        page_size: a.page_size,
        ttl_ms: a.ttl_ms,
        usage,
        ..Options::default()
    };
    let live = Live::start(registry, options)?;
    let json = a.json;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async move {
        match http {
            None => serve_stdio(live).await?,
            Some(options) => {
                let mut server = HttpServer::start(live, options).await?;
                eprintln!("skillhost: MCP listening on {}", server.url());
                if json {
                    // One line, so a host reading stdout line by line gets it whole.
                    println!("{}", serde_json::json!({ "url": server.url() }));
                }
                tokio::select! {
                    _ = stopped() => server.shutdown().await,
                    () = server.wait() => {}
                }
            }
        }
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Resolves on Ctrl-C or SIGTERM.
async fn stopped() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
