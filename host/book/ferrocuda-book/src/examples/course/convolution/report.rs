//! course-convolution's printout: the lecture's tile reduction ratios (L6) from their formulas,
//! and the measured times of the basic, tiled and fast kernels beside them.
use ferrocuda::gpu::Gpu;
use ferrocuda::measure::gb_per_s;

/// The 1-D output tiles of the lecture's table.
pub const TABLE_TILES_1D: [usize; 5] = [16, 32, 64, 128, 256];
/// The 2-D output tiles of the lecture's table.
pub const TABLE_TILES_2D: [usize; 4] = [8, 16, 32, 64];
/// The lecture's 1-D ratios, by mask width, for [`TABLE_TILES_1D`].
pub const COURSE_1D: [(usize, [f64; 5]); 2] = [(5, [4.0, 4.4, 4.7, 4.9, 4.9]), (9, [6.0, 7.2, 8.0, 8.5, 8.7])];
/// The lecture's 2-D ratios, by mask width, for [`TABLE_TILES_2D`].
pub const COURSE_2D: [(usize, [f64; 4]); 2] = [(5, [11.1, 16.0, 19.7, 22.1]), (9, [20.3, 36.0, 51.8, 64.0])];
/// Most threads a block holds: the 1-D block `O_TILE_WIDTH + MASK_WIDTH - 1` and the 2-D
/// block's side squared must fit.
const MAX_BLOCK_THREADS: usize = 1024;

/// Global reads of the basic 1-D kernel per read of the tiled one:
/// `MASK_WIDTH * O_TILE_WIDTH / (O_TILE_WIDTH + MASK_WIDTH - 1)`.
pub fn ratio_1d(mask_width: usize, o_tile: usize) -> f64 {
    (mask_width * o_tile) as f64 / (o_tile + mask_width - 1) as f64
}

/// The 2-D ratio: `O_TILE_WIDTH^2 MASK_WIDTH^2 / (O_TILE_WIDTH + MASK_WIDTH - 1)^2`.
pub fn ratio_2d(mask_width: usize, o_tile: usize) -> f64 {
    ratio_1d(mask_width, o_tile).powi(2)
}

/// The 1-D tiles run: the table's, and the widest block (the course's 1020 for a 5-wide mask).
pub fn measured_tiles_1d(mask_width: usize) -> Vec<usize> {
    let mut tiles: Vec<usize> = TABLE_TILES_1D.to_vec();
    tiles.push(MAX_BLOCK_THREADS + 1 - mask_width);
    tiles.retain(|&o| o + mask_width - 1 <= MAX_BLOCK_THREADS);
    tiles.dedup();
    tiles
}

/// The 2-D tiles run: those of the table whose block fits 1024 threads, and the widest block
/// (32 x 32 threads).
pub fn measured_tiles_2d(mask_width: usize) -> Vec<usize> {
    let widest = 33 - mask_width;
    let mut tiles: Vec<usize> = TABLE_TILES_2D.into_iter().filter(|&o| o < widest).collect();
    tiles.push(widest);
    tiles
}

/// The lecture's value for a tile, if its table has it.
fn course_value<const N: usize>(table: &[(usize, [f64; N])], tiles: &[usize; N], mask: usize, o: usize) -> String {
    table
        .iter()
        .find(|(m, _)| *m == mask)
        .zip(tiles.iter().position(|&t| t == o))
        .map_or("-".into(), |((_, values), k)| format!("{:.1}", values[k]))
}

/// The 1-D results of one mask: the basic kernel, then each tile's ratio and time.
pub fn print_1d(gpu: &Gpu, width: usize, mask: &[f32], basic: (f64, f64), measured: &[(usize, f64)]) {
    let mask_width = mask.len();
    let weights: Vec<String> = mask.iter().map(|m| m.to_string()).collect();
    println!(
        "1-D, f32, Width = {width}, Mask_Width = {mask_width} (M = {}), ghost cells 0; on {}",
        weights.join(" "),
        gpu.properties().name
    );
    println!(
        " convolution_1d_basic_kernel (256 threads a block): {:.4} ms, {:.1} GB/s (1 read + 1 write per value)",
        basic.0, basic.1
    );
    println!(
        " {:>12} {:>11} {:>16} {:>8} {:>10} {:>8} {:>12}",
        "O_TILE_WIDTH", "BLOCK_WIDTH", "ratio (formula)", "course", "tiled ms", "GB/s", "basic/tiled"
    );
    for &(o, ms) in measured {
        println!(
            " {o:>12} {:>11} {:>16.2} {:>8} {ms:>10.4} {:>8.1} {:>12.2}",
            o + mask_width - 1,
            ratio_1d(mask_width, o),
            course_value(&COURSE_1D, &TABLE_TILES_1D, mask_width, o),
            gb_per_s(2 * width * size_of::<f32>(), ms),
            basic.0 / ms
        );
    }
}

/// The 2-D results of one mask: the basic kernel, each tile, and the fast kernel.
pub fn print_2d(
    gpu: &Gpu,
    (w, h): (usize, usize),
    mask_width: usize,
    basic_ms: f64,
    measured: &[(usize, f64)],
    fast_ms: f64,
) {
    let bytes = 2 * w * h;
    println!(
        "2-D, u8, {w} x {h}, Mask_Width = {mask_width} (m[i][j] = a[i] + a[j] - 1: the slide's mask for 5), normalised by the in-image weights; on {}",
        gpu.properties().name
    );
    println!(
        " convolution_2d_basic_kernel (16 x 16): {basic_ms:.4} ms, {:.1} GB/s (1 read + 1 write per pixel)",
        gb_per_s(bytes, basic_ms)
    );
    println!(
        " {:>12} {:>11} {:>16} {:>8} {:>10} {:>8} {:>12}",
        "O_TILE_WIDTH", "BLOCK", "ratio (formula)", "course", "tiled ms", "GB/s", "basic/tiled"
    );
    for &(o, ms) in measured {
        let side = o + mask_width - 1;
        println!(
            " {o:>12} {:>11} {:>16.2} {:>8} {ms:>10.4} {:>8.1} {:>12.2}",
            format!("{side} x {side}"),
            ratio_2d(mask_width, o),
            course_value(&COURSE_2D, &TABLE_TILES_2D, mask_width, o),
            gb_per_s(bytes, ms),
            basic_ms / ms
        );
    }
    println!(
        " convolution_2d_fast_m{mask_width} (4 pixels x 8 rows a thread, dp4a): {fast_ms:.4} ms, {:.1} GB/s, basic/fast {:.2}",
        gb_per_s(bytes, fast_ms),
        basic_ms / fast_ms
    );
}

/// The lecture's two tables (L6), from the formulas, with its values beside them.
pub fn print_ratio_tables() {
    println!("Tile reduction ratios (L6), from the formulas (the lecture's values in brackets)");
    println!(" 1-D: MASK_WIDTH * O_TILE_WIDTH / (O_TILE_WIDTH + MASK_WIDTH - 1)");
    print_ratio_table(&TABLE_TILES_1D, &COURSE_1D, ratio_1d, 13);
    println!(" 2-D: O_TILE_WIDTH^2 * MASK_WIDTH^2 / (O_TILE_WIDTH + MASK_WIDTH - 1)^2");
    print_ratio_table(&TABLE_TILES_2D, &COURSE_2D, ratio_2d, 15);
    println!(" (the lecture rounds 19.75 down to 19.7 and 20.25 up to 20.3)");
}

/// One of the tables: a column per tile, `cell` wide, and a row per mask of the lecture's.
fn print_ratio_table<const N: usize>(
    tiles: &[usize; N],
    course: &[(usize, [f64; N])],
    ratio: fn(usize, usize) -> f64,
    cell: usize,
) {
    let header: Vec<String> = tiles.iter().map(|o| format!("{o:>cell$}")).collect();
    println!("  {:<14}{}", "O_TILE_WIDTH", header.join(""));
    for &(mask, values) in course {
        let cells: Vec<String> = tiles
            .iter()
            .zip(values)
            .map(|(&o, c)| format!("{:>cell$}", format!("{:.2} ({c:.1})", ratio(mask, o))))
            .collect();
        println!("  {:<14}{}", format!("MASK_WIDTH {mask}"), cells.join(""));
    }
}
