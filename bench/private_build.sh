# Sourced by the live benchmarks.  private_build DIR: a private copy in
# DIR/b of what their runs use (machtrace, the blob, the shim, machload;
# the kernel cache linked), so that a rebuild of $BUILD while a benchmark
# runs changes nothing under it.  Sets M (that machtrace) and exports
# MACHTRACE_BUILD.
private_build() {
	local d=$1/b
	mkdir -p "$d/bin" "$d/live" "$d/boot" "$d/guest" "$d/kernel"
	cp "$BUILD/bin/machtrace" "$d/bin/" && cp "$BUILD/live/blob.bin" "$d/live/" &&
		cp "$BUILD/boot/shim.elf" "$d/boot/" && cp "$BUILD/guest/machload" "$d/guest/" &&
		ln -s "$(cd "$BUILD/kernel" && pwd)/gnumach-dbg" "$d/kernel/gnumach-dbg" || return 1
	M=$d/bin/machtrace
	export MACHTRACE_BUILD=$d
}
