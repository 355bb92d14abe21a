//! ch4-p2p-access: which devices can reach each other's memory, as a matrix (book §4.1.1.1,
//! `program checkP2pAccess`, p2pAccess.cuf).
use super::{DevicesOption, none_failed, pairs};
use crate::example::{Example, Outcome, Run};
use ferrocuda::gpu::{Gpu, Result};

/// The matrix of `can_access_peer`, asked for `j < i` and mirrored as the book does: `None` on
/// the diagonal.
pub fn access_matrix(gpus: &[Gpu]) -> Result<Vec<Vec<Option<bool>>>> {
    let mut matrix = vec![vec![None; gpus.len()]; gpus.len()];
    for (i, j) in pairs(gpus.len()) {
        let ok = gpus[i].can_access_peer(&gpus[j])?;
        matrix[i][j] = Some(ok);
        matrix[j][i] = Some(ok);
    }
    Ok(matrix)
}

/// The book's matrix: `-` on the diagonal, `Y` where access is possible, blank otherwise.
pub fn format_matrix(matrix: &[Vec<Option<bool>>]) -> String {
    let mut out = format!(
        "   {}",
        (0..matrix.len()).map(|j| format!("{j:>3}")).collect::<String>()
    );
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

/// ch4-p2p-access.
pub struct Ch4P2pAccess;

impl Example for Ch4P2pAccess {
    const ID: &'static str = "ch4-p2p-access";
    const DESCRIPTION: &'static str =
        "cudaDeviceCanAccessPeer for every pair of devices, printed as a matrix (book 4.1.1.1)";
    type Args = DevicesOption;

    /// The book's program on the logical devices.
    fn run(gpu: &Gpu, run: &Run<DevicesOption>) -> Result<Outcome> {
        let gpus = run.args.open(gpu, 4)?;
        println!("Number of CUDA-capable devices: {}", gpus.len());
        for (i, g) in gpus.iter().enumerate() {
            println!("Device {i}: {}", g.properties().name);
        }
        let matrix = access_matrix(&gpus)?;
        println!("\nPeer access available:");
        println!("{}", format_matrix(&matrix));
        // What the matrix cannot show on shared or simulated devices, in one line each.
        let shared: Vec<String> = pairs(gpus.len())
            .filter(|&(i, j)| gpus[i].shares_device_with(&gpus[j]))
            .map(|(i, j)| format!("{j}-{i}"))
            .collect();
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
        for (i, j) in pairs(gpus.len()) {
            if Some(gpus[j].can_access_peer(&gpus[i])?) != matrix[j][i] {
                asymmetric.push(format!("{j}->{i}"));
            }
        }
        let check = none_failed("access is symmetric", "not for", &asymmetric);
        Ok(Outcome { checks: vec![check] })
    }
}
