//! Integration tests over real provider components and real files, in one
//! binary so wasmtime is linked once: the contract and its versions, the
//! registry, the sandbox, configuration, the compile cache, bad and planted
//! input, the corpus, usage, the conformance kit and the provider template.

mod bad_input;
mod build_sharing;
mod compile_cache;
mod config;
mod conformance;
mod contract;
mod contract_versions;
mod corpus;
mod describe;
mod document_names;
mod layers;
mod planted_files;
mod probe_serves_tree;
mod provider_changes;
mod provider_template;
mod registry;
mod same_names;
mod sandbox;
mod speedups;
mod usage;
mod validate_reference;
