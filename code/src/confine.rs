//! What a worker takes of its process before any program runs: the protocol's pipes, moved
//! off the standard streams, and (on Linux) an address-space limit and a seccomp filter that
//! leave it the system calls a running engine needs and nothing else: no file, no socket, no
//! new process.

use std::fs::File;

/// The worker's ends of the protocol: what were its standard input and output. Afterwards the
/// standard input reads nothing and the standard output writes to the standard error, so
/// nothing printed in the worker can land in the protocol.
#[cfg(unix)]
pub(super) fn take_pipes() -> std::io::Result<(File, File)> {
    use std::os::fd::{AsFd, AsRawFd};
    let input = File::from(std::io::stdin().as_fd().try_clone_to_owned()?);
    let output = File::from(std::io::stdout().as_fd().try_clone_to_owned()?);
    let null = File::open("/dev/null")?;
    // SAFETY: dup2 on descriptors this process owns (0, 1, 2 and `null`); the protocol's ends
    // were duplicated above, so nothing is lost.
    let moved = unsafe {
        libc::dup2(null.as_raw_fd(), libc::STDIN_FILENO) >= 0
            && libc::dup2(libc::STDERR_FILENO, libc::STDOUT_FILENO) >= 0
    };
    if !moved {
        return Err(std::io::Error::last_os_error());
    }
    Ok((input, output))
}

/// The worker's ends of the protocol (elsewhere than Unix: the standard streams themselves).
#[cfg(not(unix))]
pub(super) fn take_pipes() -> std::io::Result<(File, File)> {
    Err(std::io::Error::other(
        "code-mode workers need a Unix system",
    ))
}

/// Installs `handler` for `SIGUSR1`, the signal the server stops a program with.
#[cfg(unix)]
pub(super) fn on_stop_signal(handler: extern "C" fn(libc::c_int)) -> std::io::Result<()> {
    // SAFETY: a zeroed `sigaction` is a valid value to fill in; `handler` only stores to an
    // atomic, which is safe in a signal handler; no flag asks for the call to be restarted, so
    // a wait is interrupted by it.
    let installed = unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = handler as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGUSR1, &action, std::ptr::null_mut())
    };
    if installed != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Elsewhere than Unix, no signal stops a program.
#[cfg(not(unix))]
pub(super) fn on_stop_signal(_handler: extern "C" fn(i32)) -> std::io::Result<()> {
    Err(std::io::Error::other(
        "code-mode workers need a Unix system",
    ))
}

/// Waits until `file` has something to read (true) or `timeout` passed (false).
#[cfg(unix)]
pub(super) fn wait_readable(file: &File, timeout: std::time::Duration) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    let mut poll = libc::pollfd {
        fd: file.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let millis =
        libc::c_int::try_from(timeout.as_millis().saturating_add(1)).unwrap_or(libc::c_int::MAX);
    // SAFETY: `poll` reads and writes the one `pollfd` it is given.
    match unsafe { libc::poll(&mut poll, 1, millis) } {
        0 => Ok(false),
        n if n > 0 => Ok(true),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// Elsewhere than Unix, workers do not run.
#[cfg(not(unix))]
pub(super) fn wait_readable(_file: &File, _timeout: std::time::Duration) -> std::io::Result<bool> {
    Err(std::io::Error::other(
        "code-mode workers need a Unix system",
    ))
}

/// Bounds the worker's address space a margin above `memory` (the engine's own limit) and
/// installs the seccomp filter; `Err` says why the worker runs unconfined.
#[cfg(target_os = "linux")]
pub(super) fn confine(memory: usize) -> Result<(), String> {
    limit_address_space(memory)?;
    seccomp::install()
}

/// Elsewhere than Linux, a worker runs unconfined (the server says so in its log).
#[cfg(not(target_os = "linux"))]
pub(super) fn confine(_memory: usize) -> Result<(), String> {
    Err("workers are confined (seccomp, an address-space limit) on Linux only".to_owned())
}

/// What the address space may grow by past what the worker has mapped when it is set up,
/// beyond the engine's limit: the engine's own bookkeeping, the allocator's slack and the
/// messages of one program.
#[cfg(target_os = "linux")]
const ADDRESS_SPACE_MARGIN: usize = 256 * 1024 * 1024;

#[cfg(target_os = "linux")]
fn limit_address_space(memory: usize) -> Result<(), String> {
    let mapped = std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|statm| statm.split_whitespace().next()?.parse::<usize>().ok())
        .map_or(0, |pages| pages.saturating_mul(4096));
    let bytes = mapped
        .saturating_add(memory.saturating_mul(2))
        .saturating_add(ADDRESS_SPACE_MARGIN);
    let bytes = libc::rlim_t::try_from(bytes).unwrap_or(libc::RLIM_INFINITY);
    let limit = libc::rlimit {
        rlim_cur: bytes,
        rlim_max: bytes,
    };
    // SAFETY: setrlimit reads the struct it is given and nothing else.
    if unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) } != 0 {
        return Err(format!(
            "cannot limit its address space: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

#[cfg(target_os = "linux")]
mod seccomp {
    use std::collections::BTreeMap;

    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule, TargetArch,
    };

    /// What the engine and the protocol use once the worker is set up;
    /// any other system call fails with `EPERM`. Besides these, `tgkill` is allowed on the
    /// worker's own threads only (an abort signals itself), never on another process.
    const ALLOWED: &[libc::c_long] = &[
        libc::SYS_read,
        libc::SYS_readv,
        libc::SYS_write,
        libc::SYS_writev,
        libc::SYS_close,
        libc::SYS_lseek,
        libc::SYS_futex,
        libc::SYS_ppoll,
        #[cfg(target_arch = "x86_64")]
        libc::SYS_poll,
        libc::SYS_mmap,
        libc::SYS_munmap,
        libc::SYS_mremap,
        libc::SYS_mprotect,
        libc::SYS_madvise,
        libc::SYS_brk,
        libc::SYS_exit,
        libc::SYS_exit_group,
        libc::SYS_rt_sigreturn,
        libc::SYS_rt_sigprocmask,
        libc::SYS_sigaltstack,
        libc::SYS_clock_gettime,
        libc::SYS_clock_nanosleep,
        libc::SYS_nanosleep,
        libc::SYS_gettid,
        libc::SYS_getpid,
        libc::SYS_sched_yield,
        libc::SYS_sched_getaffinity,
        libc::SYS_getrandom,
        libc::SYS_rseq,
    ];

    /// Installs the filter on the worker (one thread).
    pub(super) fn install() -> Result<(), String> {
        let arch = TargetArch::try_from(std::env::consts::ARCH)
            .map_err(|e| format!("no seccomp filter for this architecture: {e}"))?;
        // `c_long` is `i64` here, `i32` on 32-bit targets.
        #[allow(clippy::useless_conversion)]
        let mut rules = ALLOWED
            .iter()
            .map(|&call| (i64::from(call), Vec::new()))
            .collect::<BTreeMap<_, _>>();
        let own = u64::from(std::process::id());
        let itself = SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, own)
            .and_then(|condition| SeccompRule::new(vec![condition]))
            .map_err(|e| format!("cannot make the seccomp filter: {e}"))?;
        #[allow(clippy::useless_conversion)]
        rules.insert(i64::from(libc::SYS_tgkill), vec![itself]);
        let filter = SeccompFilter::new(
            rules,
            SeccompAction::Errno(libc::EPERM as u32),
            SeccompAction::Allow,
            arch,
        )
        .map_err(|e| format!("cannot make the seccomp filter: {e}"))?;
        let program: BpfProgram = filter
            .try_into()
            .map_err(|e| format!("cannot compile the seccomp filter: {e:?}"))?;
        seccompiler::apply_filter_all_threads(&program)
            .map_err(|e| format!("cannot install the seccomp filter: {e}"))
    }
}

/// Tries to open a file and a socket, and says what happened and which environment variables
/// the worker has (a test hook: see `worker`).
pub(super) fn try_to_escape() -> String {
    let file = match File::open("/etc/hosts") {
        Ok(_) => "opened".to_owned(),
        Err(error) => format!("refused: {error}"),
    };
    let socket = match std::net::UdpSocket::bind("127.0.0.1:0") {
        Ok(_) => "opened".to_owned(),
        Err(error) => format!("refused: {error}"),
    };
    let env: Vec<String> = std::env::vars_os()
        .map(|(name, _)| name.to_string_lossy().into_owned())
        .collect();
    serde_json::json!({ "file": file, "socket": socket, "env": env }).to_string()
}
