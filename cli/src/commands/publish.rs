//! `skillhost publish FILE REF`: a provider component pushed to a registry
//! in the Wasm OCI artifact layout, so an author needs no other tool. A
//! file that is not a provider component is refused before anything is
//! sent.

use super::oci;
use crate::args::RegistryArgs;
use crate::output::print_json;
use anyhow::{Context as _, Result, bail};
use skillhost::Runtime;
use skillhost::paths::absolute;
use skillhost::sandbox::read_component_file;
use skillhost_oci::ComponentRef;
use std::path::Path;
use std::process::ExitCode;

pub fn run(file: &Path, reference: &str, registry: &RegistryArgs, json: bool) -> Result<ExitCode> {
    let reference = ComponentRef::parse(reference)?;
    if reference.tag.is_none() || reference.digest.is_some() {
        bail!("{reference}: publish to a tag (oci://REGISTRY/REPOSITORY:TAG), not a digest");
    }
    let path = absolute(file);
    let bytes =
        read_component_file(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let runtime = Runtime::new().context("cannot start the sandbox")?;
    let checked = oci::check(&runtime, &path.display().to_string(), &bytes)?;
    let (client, credentials) = oci::client(&reference, registry)?;
    let digest = oci::block_on(client.push(&bytes, &reference, &credentials))??;
    let pinned = reference.pinned(digest);
    if json {
        print_json(&serde_json::json!({
            "file": path,
            "reference": pinned.to_string(),
            "contract": checked.description.contract.name(),
            "version": checked.description.contract.version,
            "sha256": checked.description.sha256,
        }))?;
    } else {
        println!(
            "published {} ({}) as {pinned}",
            path.display(),
            checked.description.contract
        );
    }
    Ok(ExitCode::SUCCESS)
}
