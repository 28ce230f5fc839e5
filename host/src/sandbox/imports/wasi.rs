//! The WASI calls that could hold a host thread past the call's deadline,
//! replaced. Host code cannot be interrupted by the epoch, so nothing a
//! provider asks of WASI may wait on something the provider controls:
//!
//! - `open-at` opens non-blocking and checks the opened descriptor's type:
//!   a FIFO (whose open would sleep until a writer appears), a socket or a
//!   device is refused, never read. Mounts are read-only, so anything that
//!   would write or create is refused as wasmtime-wasi itself would.
//! - `poll` and `pollable.block` wait at most until the call's deadline (a
//!   guest that sleeps for an hour is stopped like one that loops).

use super::Shadowing;
use crate::sandbox::fault::DeadlineExceeded;
use crate::sandbox::refusals::Refused;
use cap_fs_ext::{
    FollowSymlinks, OpenOptionsFollowExt, OpenOptionsMaybeDirExt, OpenOptionsSyncExt,
};
use std::time::Instant;
use wasmtime::StoreContextMut;
use wasmtime::component::{Linker, Resource};
use wasmtime_wasi::OpenMode;
use wasmtime_wasi::filesystem::{Descriptor, Dir, File};
use wasmtime_wasi::p2::DynPollable;
use wasmtime_wasi::p2::bindings::filesystem::types::{
    DescriptorFlags, ErrorCode, OpenFlags, PathFlags,
};
use wasmtime_wasi::p2::bindings::io::poll::{Host as _, HostPollable as _};
use wasmtime_wasi::runtime::in_tokio;

/// The WASI version whose calls are replaced.
const WASI: &str = "0.2.12";

/// Replaces the calls above, after WASI itself was linked.
pub(crate) fn shadow<T: Shadowing>(linker: &mut Linker<T>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let result = shadow_all(linker);
    linker.allow_shadowing(false);
    result
}

type OpenArgs = (
    Resource<Descriptor>,
    PathFlags,
    String,
    OpenFlags,
    DescriptorFlags,
);
type Opened = Result<Resource<Descriptor>, ErrorCode>;

fn shadow_all<T: Shadowing>(linker: &mut Linker<T>) -> wasmtime::Result<()> {
    linker
        .instance(&format!("wasi:filesystem/types@{WASI}"))?
        .func_wrap(
            "[method]descriptor.open-at",
            |mut store: StoreContextMut<'_, T>, args: OpenArgs| {
                Ok((open_at(store.data_mut(), args)?,))
            },
        )?;
    let mut poll = linker.instance(&format!("wasi:io/poll@{WASI}"))?;
    poll.func_wrap(
        "poll",
        |mut store: StoreContextMut<'_, T>, (list,): (Vec<Resource<DynPollable>>,)| {
            let left = store
                .data()
                .deadline()
                .saturating_duration_since(Instant::now());
            let table = store.data_mut().table();
            match in_tokio(async move { tokio::time::timeout(left, table.poll(list)).await }) {
                Ok(ready) => Ok((ready?,)),
                Err(_) => Err(DeadlineExceeded.into()),
            }
        },
    )?;
    poll.func_wrap(
        "[method]pollable.block",
        |mut store: StoreContextMut<'_, T>, (pollable,): (Resource<DynPollable>,)| {
            let left = store
                .data()
                .deadline()
                .saturating_duration_since(Instant::now());
            let table = store.data_mut().table();
            match in_tokio(async move { tokio::time::timeout(left, table.block(pollable)).await }) {
                Ok(done) => done,
                Err(_) => Err(DeadlineExceeded.into()),
            }
        },
    )?;
    Ok(())
}

/// `open-at` beneath a read-only mount, never waiting.
fn open_at<T: Shadowing>(
    state: &mut T,
    (fd, path_flags, path, oflags, flags): OpenArgs,
) -> wasmtime::Result<Opened> {
    let parent = match state.table().get(&fd)? {
        Descriptor::Dir(dir) => dir.clone(),
        Descriptor::File(_) => return Ok(Err(ErrorCode::NotDirectory)),
    };
    let writes = oflags.intersects(OpenFlags::CREATE | OpenFlags::TRUNCATE | OpenFlags::EXCLUSIVE)
        || flags.contains(DescriptorFlags::WRITE)
        || flags.contains(DescriptorFlags::MUTATE_DIRECTORY);
    if writes {
        return Ok(Err(ErrorCode::NotPermitted));
    }
    if flags.intersects(
        DescriptorFlags::FILE_INTEGRITY_SYNC
            | DescriptorFlags::DATA_INTEGRITY_SYNC
            | DescriptorFlags::REQUESTED_WRITE_SYNC,
    ) {
        return Ok(Err(ErrorCode::Unsupported));
    }
    let mut options = cap_primitives::fs::OpenOptions::new();
    options.read(true).nonblock(true).maybe_dir(true).follow(
        if path_flags.contains(PathFlags::SYMLINK_FOLLOW) {
            FollowSymlinks::Yes
        } else {
            FollowSymlinks::No
        },
    );
    // cap-primitives resolves beneath the parent: `..` and links cannot leave it.
    let refused = |state: &mut T| {
        state.refusals().record(
            Refused::File,
            format!(
                "opened {:?}, which is not a regular file or folder: refused",
                crate::text::clip(&path, 256)
            ),
        );
        Ok(Err(ErrorCode::Access))
    };
    let opened = match cap_primitives::fs::open(&parent.dir, path.as_ref(), &options) {
        Ok(file) => file,
        // A socket cannot be opened at all.
        Err(e) if e.raw_os_error() == Some(libc::ENXIO) => return refused(state),
        Err(e) => return Ok(Err(ErrorCode::from(e))),
    };
    let meta = match opened.metadata() {
        Ok(meta) => meta,
        Err(e) => return Ok(Err(ErrorCode::from(e))),
    };
    let descriptor = if meta.is_dir() {
        Descriptor::Dir(Dir::new(opened, parent.perms, OpenMode::READ, true))
    } else if !meta.is_file() {
        return refused(state);
    } else if oflags.contains(OpenFlags::DIRECTORY) {
        return Ok(Err(ErrorCode::NotDirectory));
    } else {
        Descriptor::File(File::new(opened, parent.perms, OpenMode::READ, true))
    };
    Ok(Ok(state.table().push(descriptor)?))
}
