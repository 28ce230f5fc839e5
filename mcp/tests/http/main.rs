//! `skillhost serve` over Streamable HTTP, driven by rmcp's own client on
//! both protocol revisions: real skill folders, a real watcher, loopback.

mod catalog;
mod exhaustion;
mod invoking;
mod listing;
mod live;
mod remote;
mod safety;
mod scale;
mod sessions;
mod support;
