//! `skillhost-bench`: figures measured in one run, each against a stated
//! baseline. It is not part of the `skillhost` binary; the benches that
//! time the product as a whole process run the `skillhost` binary built
//! beside this one (or the one `SKILLHOST_BIN` names).
//!
//! - `scan` ([`scan`]): the sandboxed local provider against a native scan
//!   that reads through the host's own `files` calls in the provider's
//!   batches, follows the same discovery rules (`skillhost-skill`'s layout)
//!   and uses the same parser, cold, warm and on a blind rescan;
//! - `catalog-json` ([`catalog_json`]): `skillhost catalog --json` against
//!   the text catalog, whole process;
//! - `latency` ([`latency`]): a file change on disk to the new catalog, with
//!   the real watcher;
//! - `catalog` ([`catalog`]): the injector's per-step costs (render plus
//!   digest, and the session log's backward scan);
//! - `usage` ([`usage`]): pattern detection, scoring and ranking, recording
//!   one invocation;
//! - `serve` ([`serve`], [`attack`]): the MCP server as its clients see it
//!   (listing, change to notification, memory per session, load), then the
//!   red-team attacks against its bounds;
//! - `remote-mcp` ([`remote_mcp`]): the remote provider over MCP, cold and
//!   on an unchanged poll;
//! - `component` ([`component`]): a big provider component's first start,
//!   cached start, restart after a fault and memory per idle instance;
//! - `reach` ([`reach`]): what a model can reach of 570 skills through the
//!   listing, the MCP tool's description and search (counts, not times).

mod attack;
mod catalog;
mod catalog_json;
mod child;
mod component;
mod latency;
mod reach;
mod remote_mcp;
mod scan;
mod serve;
mod usage;

use anyhow::{Context as _, Result};
use std::path::Path;
use std::time::{Duration, Instant};

use clap::{Args as ClapArgs, Parser, Subcommand};
use skillhost::registry::watch::WatchMode;
use std::path::PathBuf;
use std::process::ExitCode;

// The product's allocator, so in-process figures are the product's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The benchmarks of skillhost, one subcommand each.
#[derive(Parser)]
#[command(name = "skillhost-bench", version)]
struct Cli {
    #[command(subcommand)]
    bench: Bench,
    /// Print the figures as JSON.
    #[arg(long, global = true)]
    json: bool,
}

/// The size of a generated tree and how often to measure.
#[derive(ClapArgs)]
struct Size {
    /// Skills in the generated tree.
    #[arg(long, default_value_t = 1000)]
    skills: usize,
    /// Timed rounds.
    #[arg(long, default_value_t = 21)]
    rounds: usize,
}

#[derive(Subcommand)]
enum Bench {
    /// The sandboxed local provider against a native scan: cold, warm,
    /// blind rescan.
    Scan(Size),
    /// `skillhost catalog --json` against the text catalog, whole process.
    CatalogJson(Size),
    /// A file change on disk to the new catalog.
    Latency {
        /// Repetitions of each operation.
        #[arg(long, default_value_t = 50)]
        reps: usize,
        /// Poll instead of native events.
        #[arg(long)]
        poll: bool,
    },
    /// Rendering and the session-log scan.
    Catalog {
        /// Timed rounds.
        #[arg(long, default_value_t = 21)]
        rounds: usize,
    },
    /// Pattern detection, scoring and ranking, recording one invocation.
    Usage {
        /// Timed rounds of detection (3 to 5).
        #[arg(long, default_value_t = 5)]
        rounds: usize,
    },
    /// `skillhost serve --http`: skills/list, change to list_changed, memory
    /// per idle session, load, and the red-team attacks.
    Serve {
        #[command(flatten)]
        size: Size,
        /// Changes timed (at least 50).
        #[arg(long, default_value_t = 50)]
        reps: usize,
        /// Entries per skills/list page.
        #[arg(long, default_value_t = 500, value_name = "N")]
        page_size: usize,
        /// Seconds of the load phase (200 sessions at once).
        #[arg(long, default_value_t = 60, value_name = "SECS")]
        load_secs: u64,
        /// Leave out the red-team attacks.
        #[arg(long)]
        no_attacks: bool,
    },
    /// The remote provider over MCP: listing cold and on an unchanged poll,
    /// time and bytes both ways.
    RemoteMcp {
        #[command(flatten)]
        size: Size,
        /// Entries per skills/list page.
        #[arg(long, default_value_t = 500, value_name = "N")]
        page_size: usize,
    },
    /// What a model reaches of 570 skills: the listing, the MCP tool's
    /// description, search.
    Reach,
    /// A provider component's first start, cached start, restarts after a
    /// fault, and memory per idle instance.
    Component {
        /// The component file.
        file: PathBuf,
        /// Restarts after a fault (at least 5).
        #[arg(long, default_value_t = 5)]
        reps: usize,
    },
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SKILLHOST_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    // See Cargo.toml: reqwest may be built with rustls and no provider.
    let _ = rustls::crypto::ring::default_provider().install_default();
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("skillhost-bench: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    let runtime = || skillhost::Runtime::new().context("cannot start the sandbox");
    let (json, text) = match cli.bench {
        Bench::Scan(size) => {
            let options = scan::BenchOptions {
                skills: size.skills,
                rounds: size.rounds.max(1),
            };
            let report = scan::run(&runtime()?, options)?;
            (report.to_json(), report.render())
        }
        Bench::CatalogJson(size) => {
            let report = catalog_json::run(size.skills, size.rounds.max(1))?;
            (report.to_json(), report.render())
        }
        Bench::Latency { reps, poll } => {
            let mode = if poll {
                WatchMode::Poll(Duration::from_millis(50))
            } else {
                WatchMode::Native
            };
            let options = latency::LatencyOptions {
                reps: reps.max(1),
                mode,
                ..latency::LatencyOptions::default()
            };
            let report = latency::run(&runtime()?, options)?;
            (report.to_json(), report.render())
        }
        Bench::Catalog { rounds } => {
            let report = catalog::run(10_000, 100_000, rounds.max(1));
            (report.to_json(), report.render())
        }
        Bench::Usage { rounds } => {
            let report = usage::run(rounds.min(5))?;
            (report.to_json(), report.render())
        }
        Bench::Serve {
            size,
            reps,
            page_size,
            load_secs,
            no_attacks,
        } => {
            let options = serve::ServeOptions {
                skills: size.skills,
                listings: size.rounds.max(100),
                // At least 50 changes, so the p99 means something.
                changes: reps.max(50),
                sessions: 100,
                page_size,
                load_secs,
                attacks: !no_attacks,
            };
            let report = serve::run(&runtime()?, options)?;
            (report.to_json(), report.render())
        }
        Bench::RemoteMcp { size, page_size } => {
            let report = remote_mcp::run(&runtime()?, size.skills, size.rounds.max(3), page_size)?;
            (report.to_json(), report.render())
        }
        Bench::Reach => {
            let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
            let report = reach::run(&workspace);
            (report.to_json(), report.render())
        }
        Bench::Component { file, reps } => {
            let report = component::run(&file, reps.max(5))?;
            (report.to_json(), report.render())
        }
    };
    if cli.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&json).context("cannot write the figures as JSON")?
        );
    } else {
        print!("{text}");
    }
    Ok(())
}

/// The `skillhost` binary the whole-process benches run: `SKILLHOST_BIN`,
/// else the one built beside this program (`cargo build --release
/// --workspace` puts both in `target/release`).
pub fn product() -> Result<PathBuf> {
    if let Some(path) = std::env::var_os("SKILLHOST_BIN") {
        return Ok(PathBuf::from(path));
    }
    let me = std::env::current_exe().context("cannot find this program")?;
    let beside = me
        .parent()
        .map(|dir| dir.join(format!("skillhost{}", std::env::consts::EXE_SUFFIX)))
        .filter(|p| p.is_file());
    beside.ok_or_else(|| {
        anyhow::anyhow!(
            "bench: no skillhost binary beside {}; build it (cargo build --release -p skillhost-cli) or name one in SKILLHOST_BIN",
            me.display()
        )
    })
}

/// The median of `samples` (zero when empty).
pub fn median(samples: &[Duration]) -> Duration {
    percentile(samples, 50.0)
}

/// The `p`-th percentile (0–100) of `samples`.
pub fn percentile(samples: &[Duration], p: f64) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort_unstable();
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

/// Milliseconds, for reports.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// `a / b`.
pub fn ratio(a: Duration, b: Duration) -> f64 {
    if b.is_zero() {
        return f64::INFINITY;
    }
    a.as_secs_f64() / b.as_secs_f64()
}

/// Runs `f` and says how long it took.
pub fn timed<T>(f: impl FnOnce() -> T) -> (Duration, T) {
    let start = Instant::now();
    let out = f();
    (start.elapsed(), out)
}

/// Writes `text` to `path`.
pub fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// A generated skill document: realistic frontmatter and a body of a few
/// kilobytes; `variant` changes its description.
pub fn document(i: usize, variant: &str) -> String {
    let body = "Follow the steps below, checking each result before moving on. \
                Prefer small, verifiable changes and explain trade-offs briefly.\n"
        .repeat(20);
    format!(
        "---\nname: skill-{i:05}\ndescription: Use when working on generated task {i} ({variant}) - \
         exercises the catalog with a realistic one-sentence description.\n\
         when_to_use: When the user mentions task {i}\nallowed-tools: Read, Grep, Bash(git:*)\n\
         metadata:\n  author: bench\n  version: \"1.0\"\n---\n# Skill {i}\n\n{body}"
    )
}

/// Writes `count` generated bundle skills into `root`; one in ten has a
/// reference file.
pub fn generate_tree(root: &Path, count: usize) -> Result<()> {
    for i in 0..count {
        let dir = root.join(format!("skill-{i:05}"));
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        write(&dir.join("SKILL.md"), &document(i, "first"))?;
        if i % 10 == 0 {
            let refs = dir.join("references");
            std::fs::create_dir_all(&refs)
                .with_context(|| format!("cannot create {}", refs.display()))?;
            write(&refs.join("notes.md"), "# Notes\n\nSupporting material.\n")?;
        }
    }
    Ok(())
}

/// Fails the benchmark when a measured operation saw the wrong result
/// (its timing would be meaningless).
pub fn check(found: usize, expected: usize, what: &str) -> Result<()> {
    anyhow::ensure!(
        found == expected,
        "bench: {what} found {found} skills, expected {expected}"
    );
    Ok(())
}
