//! Compiles the C reference loops linked into the worker (`c/`, `reference` family) at -O2, as
//! `bench/fidelity` compiles its standalone C references, whatever the Cargo profile.

fn main() {
    println!("cargo:rerun-if-changed=c/fork_loop.c");
    cc::Build::new()
        .file("c/fork_loop.c")
        .opt_level(2)
        .warnings(true)
        .compile("concbench_reference");
}
