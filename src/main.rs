#![forbid(unsafe_code)]

/// jemalloc instead of the C library's malloc: a mail's way through the relay is thousands of
/// small allocations on one thread freed on another (the courier's), which glibc's malloc pays
/// for in locks and its `_int_malloc` (docs/performance.md, P2).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> std::process::ExitCode {
    fernzug::cli::main()
}
