//! ch4-p2p-access: which devices can reach each other's memory, as a matrix (book §4.1.1.1,
//! `program checkP2pAccess`, p2pAccess.cuf).
use super::{DEVICES, open_devices};
use crate::example::{LegacyExample, Options, Outcome};
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::verify::Check;

pub const EXAMPLE: LegacyExample = LegacyExample {
    id: "ch4-p2p-access",
    description: "cudaDeviceCanAccessPeer for every pair of devices, printed as a matrix (book 4.1.1.1)",
    size: None,
    f64: false,
    reps: false,
    flags: &[DEVICES],
    run,
};

/// The matrix of `can_access_peer`, asked for `j < i` and mirrored as the book does: `None` on
/// the diagonal.
pub fn access_matrix(gpus: &[Gpu]) -> Result<Vec<Vec<Option<bool>>>> {
    let n = gpus.len();
    let mut matrix = vec![vec![None; n]; n];
    for i in 0..n {
        for j in 0..i {
            let ok = gpus[i].can_access_peer(&gpus[j])?;
            matrix[i][j] = Some(ok);
            matrix[j][i] = Some(ok);
        }
    }
    Ok(matrix)
}

/// The book's matrix: `-` on the diagonal, `Y` where access is possible, blank otherwise.
pub fn format_matrix(matrix: &[Vec<Option<bool>>]) -> String {
    let mut out = String::from("   ");
    for j in 0..matrix.len() {
        out += &format!("{j:>3}");
    }
    for (i, row) in matrix.iter().enumerate() {
        out += &format!("\n{i:>3}");
        for cell in row {
            out += match cell {
                None => "  -",
                Some(true) => "  Y",
                Some(false) => "   ",
            };
        }
    }
    out
}

/// The book's program on the logical devices.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let gpus = open_devices(gpu, options, 4)?;
    println!("Number of CUDA-capable devices: {}", gpus.len());
    for (i, g) in gpus.iter().enumerate() {
        println!("Device {i}: {}", g.properties().name);
    }
    let matrix = access_matrix(&gpus)?;
    println!("\nPeer access available:");
    println!("{}", format_matrix(&matrix));
    // What the matrix cannot show on shared or simulated devices, in one line each.
    let mut shared = Vec::new();
    for i in 0..gpus.len() {
        for j in 0..i {
            if gpus[i].shares_device_with(&gpus[j]) {
                shared.push(format!("{j}-{i}"));
            }
        }
    }
    if !shared.is_empty() {
        println!(
            "Logical devices {} share a GPU: peer access does not apply between them (blank), so this matrix says nothing about peer-to-peer links",
            shared.join(", ")
        );
    }
    if gpus.first().is_some_and(Gpu::is_simulator) && gpus.len() > 1 {
        println!("The simulators have no peer access (blank): this matrix says nothing about peer-to-peer links");
    }
    // cudaDeviceCanAccessPeer asked the other way round must agree with the mirrored matrix
    // (the book assumes the symmetry it prints).
    let mut asymmetric = Vec::new();
    for i in 0..gpus.len() {
        for j in 0..i {
            if Some(gpus[j].can_access_peer(&gpus[i])?) != matrix[j][i] {
                asymmetric.push(format!("{j}->{i}"));
            }
        }
    }
    let check = Check::condition(
        &format!(
            "access is symmetric{}",
            if asymmetric.is_empty() {
                String::new()
            } else {
                format!(" (not for {})", asymmetric.join(", "))
            }
        ),
        asymmetric.is_empty(),
    );
    Ok(Outcome { checks: vec![check] })
}
