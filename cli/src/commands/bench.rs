//! `skillhost bench`: the sandbox against a native baseline, change
//! latency, the injector's per-step costs, `catalog --json` against the
//! text catalog, or the usage layer's.

use crate::bench::{self as benches, BenchOptions, LatencyOptions};
use crate::context::Ctx;
use crate::output::print_json;
use anyhow::Result;
use skillhost::registry::watch::WatchMode;
use std::process::ExitCode;
use std::time::Duration;

/// What `bench` was asked.
pub struct Args {
    pub skills: usize,
    pub rounds: usize,
    pub latency: bool,
    pub catalog: bool,
    pub serve: bool,
    pub remote_mcp: bool,
    pub page_size: usize,
    pub load_secs: u64,
    pub reps: usize,
    pub poll: bool,
    pub usage: bool,
    pub catalog_json: bool,
    pub component: Option<std::path::PathBuf>,
    pub json: bool,
}

pub fn run(ctx: &Ctx, a: Args) -> Result<ExitCode> {
    let (json, text) = if let Some(file) = &a.component {
        let report = benches::component::run(file, a.reps.max(5))?;
        (report.to_json(), report.render())
    } else if a.catalog_json {
        let report = benches::catalog_json::run(a.skills, a.rounds.max(1))?;
        (report.to_json(), report.render())
    } else if a.usage {
        let report = benches::usage::run(a.rounds.min(5))?;
        (report.to_json(), report.render())
    } else if a.remote_mcp {
        let report =
            benches::remote_mcp::run(&ctx.runtime, a.skills, a.rounds.max(3), a.page_size)?;
        (report.to_json(), report.render())
    } else if a.serve {
        let options = benches::serve::ServeOptions {
            skills: a.skills,
            listings: a.rounds.max(100),
            // At least 50 changes, so the p99 means something.
            changes: a.reps.max(50),
            sessions: 100,
            page_size: a.page_size,
            load_secs: a.load_secs,
        };
        let report = benches::serve::run(&ctx.runtime, options)?;
        (report.to_json(), report.render())
    } else if a.catalog {
        let report = benches::catalog::run(10_000, 100_000, a.rounds.max(1));
        (report.to_json(), report.render())
    } else if a.latency {
        let mode = if a.poll {
            WatchMode::Poll(Duration::from_millis(50))
        } else {
            WatchMode::Native
        };
        let options = LatencyOptions {
            reps: a.reps.max(1),
            mode,
            ..LatencyOptions::default()
        };
        let report = benches::latency::run(&ctx.runtime, options)?;
        (report.to_json(), report.render())
    } else {
        let options = BenchOptions {
            skills: a.skills,
            rounds: a.rounds.max(1),
        };
        let report = benches::scan::run(&ctx.runtime, options)?;
        (report.to_json(), report.render())
    };
    if a.json {
        print_json(&json)?;
    } else {
        print!("{text}");
    }
    Ok(ExitCode::SUCCESS)
}
