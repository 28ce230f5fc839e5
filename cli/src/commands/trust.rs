//! `skillhost trust`: a configuration file found in a folder, trusted as
//! it is now.

use crate::context::cwd;
use crate::output::print_json;
use anyhow::Result;
use skillhost::Runtime;
use skillhost::config::trust::TrustStore;
use skillhost::config::{Config, FILE_NAME, Source};
use skillhost::sandbox::manifest::manifest;
use skillhost::sandbox::read_component_file;
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
    let declared = declarations(&config);
    if json {
        let declared: Vec<_> = declared
            .iter()
            .map(|(id, lines)| serde_json::json!({"provider": id, "declares": lines}))
            .collect();
        print_json(&serde_json::json!({
            "path": config.path,
            "digest": config.digest,
            "asks": asks,
            "declared": declared,
        }))?;
    } else {
        let shown = skillhost::text::escaped(&config.path.display().to_string());
        println!("trusted {shown} ({})", config.digest);
        for ask in &asks {
            println!("  it {ask}");
        }
        for (id, lines) in &declared {
            let id = skillhost::text::escaped(id);
            println!("  {id}'s component declares (a request; the file decides what it gets):");
            for line in lines {
                println!("    {}", skillhost::text::escaped(line));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What each component the file runs says it wants, in words: its
/// manifest, asked of an instance granted nothing (or why it could not be).
fn declarations(config: &Config) -> Vec<(String, Vec<String>)> {
    let wasm: Vec<_> = config
        .providers
        .iter()
        .filter_map(|p| match &p.source {
            Source::Wasm(file) => Some((p.id.clone(), file.clone())),
            _ => None,
        })
        .collect();
    if wasm.is_empty() {
        return Vec::new();
    }
    let runtime = match Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => return vec![("sandbox".to_string(), vec![format!("cannot start: {e}")])],
    };
    wasm.into_iter()
        .map(|(id, file)| {
            let lines = read_component_file(&file)
                .map_err(|e| format!("cannot read {}: {e}", file.display()))
                .and_then(|bytes| runtime.engine().load(&bytes).map_err(|e| e.to_string()))
                .and_then(|c| manifest(runtime.engine(), &c).map_err(|f| f.to_string()));
            let lines = match lines {
                Ok(Some(m)) => m.lines(),
                Ok(None) => vec!["nothing: a 0.1.0 component has no manifest".to_string()],
                Err(e) => vec![format!("unknown: {e}")],
            };
            (id, lines)
        })
        .collect()
}
