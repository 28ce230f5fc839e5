//! `skillhost trust`: a configuration file found in a folder, trusted as
//! it is now.

use crate::context::cwd;
use crate::output::print_json;
use anyhow::Result;
use skillhost::config::trust::TrustStore;
use skillhost::config::{Config, FILE_NAME};
use std::path::Path;
use std::process::ExitCode;

pub fn run(file: Option<&Path>, json: bool) -> Result<ExitCode> {
    let path = match file {
        Some(file) => file.to_path_buf(),
        None => cwd()?.join(FILE_NAME),
    };
    let config = Config::load(&path)?;
    TrustStore::open()?.trust(&config)?;
    let asks = config.asks();
    if json {
        print_json(&serde_json::json!({
            "path": config.path,
            "digest": config.digest,
            "asks": asks,
        }))?;
    } else {
        println!("trusted {} ({})", config.path.display(), config.digest);
        for ask in &asks {
            println!("  it {ask}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
