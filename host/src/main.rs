//! The `skillhost` command line: a thin layer over the library.

use anyhow::{Context as _, Result};
use clap::{Parser, Subcommand};
use skillhost::bench::{self, BenchOptions, LatencyOptions};
use skillhost::model::Catalog;
use skillhost::watcher::{WatchMode, WatchOptions};
use skillhost::{Registry, Runtime, validate};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Duration;

/// Serve agent skills from sandboxed WebAssembly providers.
#[derive(Parser)]
#[command(name = "skillhost", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the merged catalog of the skill roots.
    Catalog {
        /// A skills root, highest precedence first (default: .agents/skills
        /// and .claude/skills here, then in your home folder).
        #[arg(long = "root", value_name = "DIR")]
        roots: Vec<PathBuf>,
        /// Print the catalog as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print a skill's body, read again from its source.
    Load {
        /// The skill's name (or an alias).
        name: String,
        /// A skills root, highest precedence first.
        #[arg(long = "root", value_name = "DIR")]
        roots: Vec<PathBuf>,
        /// Print the skill and its body as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Check skills against the strict Agent Skills rules; exit 1 on any problem.
    Validate {
        /// A skill folder, a SKILL.md or flat .md file, or a folder of skills.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// Print the problems as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print the catalog, then again each time it changes (until interrupted).
    Watch {
        /// A skills root, highest precedence first.
        #[arg(long = "root", value_name = "DIR")]
        roots: Vec<PathBuf>,
        /// Print each catalog as one line of JSON.
        #[arg(long)]
        json: bool,
        /// Poll the folders instead of using the operating system's events.
        #[arg(long)]
        poll: bool,
        /// Polling interval in milliseconds.
        #[arg(long, default_value_t = 200, value_name = "MS")]
        poll_interval: u64,
        /// How long a burst of changes must be quiet before it counts, in milliseconds.
        #[arg(long, default_value_t = 10, value_name = "MS")]
        window: u64,
    },
    /// Time the sandboxed provider against a native scan with the same parser,
    /// or (with --latency) how fast a file change reaches the catalog.
    Bench {
        /// Skills in the generated tree.
        #[arg(long, default_value_t = 1000)]
        skills: usize,
        /// Timed rounds.
        #[arg(long, default_value_t = 21)]
        rounds: usize,
        /// Measure change-to-catalog latency instead.
        #[arg(long)]
        latency: bool,
        /// Repetitions of each operation for --latency.
        #[arg(long, default_value_t = 50)]
        reps: usize,
        /// Use polling instead of native events for --latency.
        #[arg(long)]
        poll: bool,
        /// Print the figures as JSON.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SKILLHOST_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,notify=error")),
        )
        .with_writer(std::io::stderr)
        .init();
    match run(Cli::parse()) {
        Ok(code) => code,
        // A reader that stops early (`| head`) is not an error.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("skillhost: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        let kind = c
            .downcast_ref::<std::io::Error>()
            .map(std::io::Error::kind)
            .or_else(|| {
                c.downcast_ref::<serde_json::Error>()
                    .and_then(serde_json::Error::io_error_kind)
            });
        kind == Some(std::io::ErrorKind::BrokenPipe)
    })
}

/// A registry over the given roots, or over the usual ones.
fn registry(runtime: &Runtime, roots: &[PathBuf]) -> Result<Registry> {
    if !roots.is_empty() {
        return Ok(runtime.registry_for_roots(roots)?);
    }
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    Ok(runtime.registry_for_default_roots(&cwd, std::env::home_dir().as_deref())?)
}

fn print_json(value: &serde_json::Value) -> Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}

fn run(cli: Cli) -> Result<ExitCode> {
    let runtime = Runtime::new().context("cannot start the sandbox")?;
    match cli.command {
        Command::Catalog { roots, json } => {
            let catalog = registry(&runtime, &roots)?.snapshot();
            if json {
                print_json(&catalog.to_json())?;
            } else {
                print_catalog(&catalog)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Load { name, roots, json } => {
            let doc = registry(&runtime, &roots)?.load(&name)?;
            if json {
                print_json(&doc.to_json())?;
            } else {
                let mut out = std::io::stdout().lock();
                out.write_all(doc.body.as_bytes())?;
                if !doc.body.ends_with('\n') {
                    writeln!(out)?;
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Validate { paths, json } => {
            let report = validate::validate_paths(&runtime, &paths)?;
            if json {
                print_json(&serde_json::json!({
                    "checked": report.checked,
                    "problems": report.problems.iter().map(validate::Problem::to_json).collect::<Vec<_>>(),
                }))?;
            } else {
                let mut out = std::io::stdout().lock();
                for problem in &report.problems {
                    writeln!(out, "{problem}")?;
                }
                if report.problems.is_empty() {
                    writeln!(out, "{} skill(s) valid", report.checked.len())?;
                }
            }
            Ok(if report.problems.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Watch {
            roots,
            json,
            poll,
            poll_interval,
            window,
        } => {
            let mode = if poll {
                WatchMode::Poll(Duration::from_millis(poll_interval.max(1)))
            } else {
                WatchMode::Native
            };
            let options = WatchOptions {
                mode,
                window: Duration::from_millis(window),
                ..WatchOptions::default()
            };
            watch(&registry(&runtime, &roots)?, options, json)
        }
        Command::Bench {
            latency: true,
            reps,
            poll,
            json,
            ..
        } => {
            let mode = if poll {
                WatchMode::Poll(Duration::from_millis(50))
            } else {
                WatchMode::Native
            };
            let options = LatencyOptions {
                reps: reps.max(1),
                mode,
                ..LatencyOptions::default()
            };
            let report = bench::latency(&runtime, options)?;
            if json {
                print_json(&report.to_json())?;
            } else {
                print!("{}", report.render());
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench {
            skills,
            rounds,
            json,
            ..
        } => {
            let report = bench::run(
                &runtime,
                BenchOptions {
                    skills,
                    rounds: rounds.max(1),
                },
            )?;
            if json {
                print_json(&report.to_json())?;
            } else {
                print!("{}", report.render());
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Prints the catalog now and after every change that alters it. Runs until
/// interrupted or until the reader goes away.
fn watch(registry: &Registry, options: WatchOptions, json: bool) -> Result<ExitCode> {
    registry.watch(options)?;
    let (tx, rx) = mpsc::channel();
    let _subscription = registry.subscribe(move || {
        let _ = tx.send(());
    });
    let mut last: Option<String> = None;
    loop {
        let catalog = registry.snapshot();
        let rendered = if json {
            let mut line = serde_json::to_string(&catalog.to_json())?;
            line.push('\n');
            line
        } else {
            render_catalog(&catalog) + "\n"
        };
        if last.as_ref() != Some(&rendered) {
            let mut out = std::io::stdout().lock();
            out.write_all(rendered.as_bytes())?;
            out.flush()?;
            last = Some(rendered);
        }
        // An incomplete catalog is asked again soon: its sources are retried.
        let wait = if catalog.complete {
            Duration::from_secs(3600)
        } else {
            Duration::from_millis(500)
        };
        match rx.recv_timeout(wait) {
            Ok(()) | Err(mpsc::RecvTimeoutError::Timeout) => while rx.try_recv().is_ok() {},
            Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(ExitCode::SUCCESS),
        }
    }
}

fn print_catalog(catalog: &Catalog) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(render_catalog(catalog).as_bytes())?;
    Ok(())
}

/// The human-readable catalog: one line per skill, then diagnostics.
fn render_catalog(catalog: &Catalog) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let width = catalog
        .skills
        .iter()
        .map(|s| s.name().chars().count())
        .max()
        .unwrap_or(0);
    for skill in &catalog.skills {
        let description = skill.description().unwrap_or("(no description)");
        let first_line = description.lines().next().unwrap_or_default();
        let _ = writeln!(out, "{:width$}  {first_line}", skill.name());
    }
    if !catalog.diagnostics.is_empty() {
        out.push('\n');
        for d in &catalog.diagnostics {
            let _ = writeln!(out, "{d}");
        }
    }
    let _ = writeln!(
        out,
        "\n{} skill(s){}",
        catalog.skills.len(),
        if catalog.complete {
            ""
        } else {
            " (incomplete: some sources could not be read; showing their last complete view)"
        }
    );
    out
}
