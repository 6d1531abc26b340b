//! Forcing MPICH's own algorithms of a collective from inside one job,
//! through the MPI tool interface. MPICH (4 and later) reads
//! `MPIR_CVAR_<COLL>_INTRA_ALGORITHM` at every call of the collective, so
//! writing it just before a call and putting it back just after makes that
//! one call run the algorithm named: one `mpirun` measures all of them.
//!
//! Two more of MPICH's variables decide whether the call reaches that
//! selection at all: with `MPIR_CVAR_DEVICE_COLLECTIVES=all` the device
//! layer takes every call and picks its own algorithms. With `percoll`
//! (MPICH 5.0's default) each collective's
//! `MPIR_CVAR_<COLL>_DEVICE_COLLECTIVE` decides (true by default). So
//! `bench` sets `percoll` before MPI_Init where the user set nothing,
//! leaves `default` to the device as users run it, and switches the
//! collective's device variable off around a forced call only.
//!
//! An algorithm MPICH cannot run on the arguments falls back to MPICH's own
//! choice without a word (`MPIR_CVAR_COLLECTIVE_FALLBACK=silent`), so
//! `bench` leaves such points out beforehand, by the restrictions MPICH
//! declares for each algorithm (the descriptions' `restrictions`). The
//! fallback itself must stay silent: `smp` calls the collective again on
//! its node and leaders' communicators, where the variable still names
//! `smp` and MPICH's own choice is what it means to run (with
//! `FALLBACK=error` those inner calls fail).

use super::control::{check, init_tool_interface, read_string, Cvar};
use crate::collective::{MpichAlgorithm, MpichParam};
use crate::data::{Algorithm, Candidate, Collective};
use mpi::ffi;
use std::ffi::CString;
use std::os::raw::{c_char, c_int};

/// MPICH's switch between device-level and MPIR-level selection.
const DEVICE_COLLECTIVES: &str = "MPIR_CVAR_DEVICE_COLLECTIVES";
/// MPICH's selection file.
const SELECTION: &str = "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE";

/// The selection file MPICH read: MPI_T's value, or (MPICH 5.0 reads its
/// string variables back empty through MPI_T) the environment MPICH took
/// it from, by the prefixes it accepts (`MPIR_CVAR_` outranking the
/// others, as MPICH reads them in that order).
pub fn selection_file() -> Result<String, String> {
    init_tool_interface()?;
    let through_tool = read_string(SELECTION);
    if !through_tool.trim().is_empty() {
        return Ok(through_tool);
    }
    let name = SELECTION.trim_start_matches("MPIR_CVAR_");
    Ok(["MPIR_CVAR_", "MPIR_PARAM_", "MPICH_"]
        .iter()
        .find_map(|prefix| std::env::var(format!("{prefix}{name}")).ok())
        .unwrap_or_default())
}

/// Sets [`DEVICE_COLLECTIVES`] to `percoll` for this process where the
/// user chose nothing; must run before `mpi::initialize`. Other libraries
/// ignore it.
pub fn prepare_environment() {
    if std::env::var_os(DEVICE_COLLECTIVES).is_none() {
        std::env::set_var(DEVICE_COLLECTIVES, "percoll");
    }
}

/// MPICH's numbers for its algorithms of one collective, as the MPICH in
/// use declares them.
pub struct MpichControl {
    collective: Collective,
    /// `MPIR_CVAR_<COLL>_INTRA_ALGORITHM`'s value of each algorithm this
    /// MPICH has.
    ids: Vec<(Algorithm, c_int)>,
}

impl MpichControl {
    /// Reads the algorithm variable's values; fails with an explanation
    /// where the library is not an MPICH that can force them, or where
    /// the environment would change what they or `default` run: an
    /// algorithm or a selection file chosen for the whole job.
    pub fn open(collective: Collective) -> Result<MpichControl, String> {
        init_tool_interface()?;
        let file = selection_file()?;
        if !file.trim().is_empty() {
            return Err(format!(
                "a selection file is in effect ({SELECTION}={file}): bench and tune time \
                 MPICH's own choice as `default` and its algorithms as named, and the file \
                 would change both; unset it to measure (check it with `verify`)"
            ));
        }
        Self::open_beside_selection(collective)
    }

    /// [`MpichControl::open`] where a selection file may be in effect
    /// (`verify`): a forced algorithm takes precedence over it.
    pub fn open_beside_selection(collective: Collective) -> Result<MpichControl, String> {
        init_tool_interface()?;
        let variable = algorithm_variable(collective);
        if Cvar::open(&variable)?.read()? != 0 {
            return Err(format!(
                "{variable} is set for the whole job: `default` would time that algorithm, \
                 not MPICH's own choice; unset it (bench forces each algorithm per call)"
            ));
        }
        let names = value_names(&description(&variable)?);
        if names.first().map(String::as_str) != Some("auto") {
            return Err(format!(
                "{variable}'s description does not list `auto` first: this MPICH numbers \
                 its algorithms in a way bench does not know"
            ));
        }
        let ids = collective
            .describe()
            .mpich
            .algorithms
            .iter()
            .filter_map(|m| {
                let id = names.iter().position(|n| n == m.algorithm.name())?;
                Some((m.algorithm, id as c_int))
            })
            .collect();
        let device = device_collectives()?;
        if device != "percoll" && device != "none" {
            return Err(format!(
                "{DEVICE_COLLECTIVES}={device}: MPICH's device layer then takes every call and \
                 a forced algorithm never runs; unset it (bench sets percoll) or set percoll"
            ));
        }
        check_parameters(collective)?;
        Ok(MpichControl { collective, ids })
    }

    /// Whether this MPICH has `algorithm` for the collective.
    pub fn has(&self, algorithm: Algorithm) -> bool {
        self.ids.iter().any(|(a, _)| *a == algorithm)
    }

    /// What forces `candidate`'s algorithm, with its radix and chunk, for
    /// one call at a time.
    pub fn forcing(&self, candidate: &Candidate) -> Result<Forcing, String> {
        let algorithm = candidate.algorithm;
        let (_, id) = self
            .ids
            .iter()
            .find(|(a, _)| *a == algorithm)
            .ok_or_else(|| {
                format!(
                    "this MPICH has no {} algorithm {algorithm}",
                    self.collective.function()
                )
            })?;
        let mut forcing = Forcing::new(self.collective, true)?;
        // `open` found it 0 (MPICH's own choice), and it is put back so.
        let variable = Cvar::open(&algorithm_variable(self.collective))?;
        forcing.set.push((variable, *id, 0));
        // The radix and the chunk are written for every call (MPICH's
        // default where the candidate has none), whatever the environment
        // set.
        if let Some(m) = self.collective.mpich_algorithm(algorithm) {
            for param in m.params.iter().filter(|p| MpichAlgorithm::swept(p)) {
                let variable = Cvar::open(&parameter_variable(self.collective, param))?;
                let value = m.value(param, candidate.segsize, candidate.fanout);
                let value = value
                    .parse()
                    .map_err(|_| format!("{} {value} of {algorithm} is not an int", param.key))?;
                let before = variable.read()?;
                forcing.set.push((variable, value, before));
            }
        }
        Ok(forcing)
    }

    /// What leaves one call at a time to MPICH's device layer: MPICH's own
    /// choice where the job takes the collective from it (`verify`).
    pub fn own_choice(&self) -> Result<Forcing, String> {
        Forcing::new(self.collective, false)
    }
}

/// Sets MPICH's variables for single calls ([`Forcing::force`]): the
/// collective's device variable, and the algorithm and its radix and chunk
/// where one is forced.
pub struct Forcing {
    /// Each variable, its value during a call and outside.
    set: Vec<(Cvar, c_int, c_int)>,
}

impl Forcing {
    /// `forced`: the calls leave the device layer for MPICH's algorithms;
    /// else they go to it.
    fn new(collective: Collective, forced: bool) -> Result<Forcing, String> {
        let name = collective.name().to_ascii_uppercase();
        let device = Cvar::open(&format!("MPIR_CVAR_{name}_DEVICE_COLLECTIVE"))?;
        let before = device.read()?;
        Ok(Forcing {
            set: vec![(device, c_int::from(!forced), before)],
        })
    }

    /// Sets the variables for the next calls until the guard drops.
    pub fn force(&self) -> Result<Forced<'_>, String> {
        for (variable, during, _) in &self.set {
            variable.write(*during)?;
        }
        Ok(Forced(self))
    }
}

/// While alive, the collective runs as the [`Forcing`] says.
pub struct Forced<'a>(&'a Forcing);

impl Drop for Forced<'_> {
    fn drop(&mut self) {
        // Each was written a moment ago: it stays writable.
        for (variable, _, before) in self.0.set.iter().rev() {
            let _ = variable.write(*before);
        }
    }
}

/// `MPIR_CVAR_DEVICE_COLLECTIVES`'s value by name (`all`, `none`,
/// `percoll`), as the MPICH in use declares its values.
pub fn device_collectives() -> Result<String, String> {
    init_tool_interface()?;
    let names = value_names(&description(DEVICE_COLLECTIVES)?);
    let value = Cvar::open(DEVICE_COLLECTIVES)?.read()?;
    usize::try_from(value)
        .ok()
        .and_then(|i| names.get(i).cloned())
        .ok_or_else(|| {
            format!("{DEVICE_COLLECTIVES} holds {value}, which its description does not name")
        })
}

/// The control variable of an algorithm's parameter.
fn parameter_variable(collective: Collective, param: &MpichParam) -> String {
    format!(
        "MPIR_CVAR_{}_{}",
        collective.name().to_ascii_uppercase(),
        param.cvar
    )
}

fn algorithm_variable(collective: Collective) -> String {
    format!(
        "MPIR_CVAR_{}_INTRA_ALGORITHM",
        collective.name().to_ascii_uppercase()
    )
}

/// The values an MPICH algorithm variable's description names, in order:
/// MPICH 4 and 5 declare the variable as an int without an MPI_T enum, and
/// its description lists `name - what it does`, one per line, from `auto`
/// (0) in the order of the values.
pub fn value_names(description: &str) -> Vec<String> {
    description
        .lines()
        .filter(|line| line.contains(" - "))
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

/// A control variable's description.
fn description(name: &str) -> Result<String, String> {
    let cname = CString::new(name).map_err(|e| e.to_string())?;
    let mut index: c_int = -1;
    // SAFETY: valid NUL-terminated name and out-pointer.
    let rc = unsafe { ffi::MPI_T_cvar_get_index(cname.as_ptr(), &mut index) };
    if rc != 0 {
        return Err(format!(
            "the MPI library has no control variable {name}: forcing MPICH's algorithms \
             (--impl mpich) needs MPICH 4 or later; --impl ompi forces Open MPI's, --impl \
             own runs our schedules"
        ));
    }
    let info = |desc: *mut c_char, desc_len: &mut c_int| {
        let (mut name_len, mut verbosity, mut bind, mut scope) = (0, 0, 0, 0);
        let mut datatype = std::mem::MaybeUninit::<ffi::MPI_Datatype>::uninit();
        let mut enumtype = std::mem::MaybeUninit::<ffi::MPI_T_enum>::uninit();
        // SAFETY: a zero name length asks for no name; every out-pointer
        // is valid; `desc` holds `desc_len` bytes (or is null with 0).
        unsafe {
            ffi::MPI_T_cvar_get_info(
                index,
                std::ptr::null_mut(),
                &mut name_len,
                &mut verbosity,
                datatype.as_mut_ptr(),
                enumtype.as_mut_ptr(),
                desc,
                desc_len,
                &mut bind,
                &mut scope,
            )
        }
    };
    // A zero length asks for the length the description needs.
    let mut len: c_int = 0;
    check(info(std::ptr::null_mut(), &mut len), name)?;
    let mut buf = vec![0u8; len.max(0) as usize + 1];
    let mut len = buf.len() as c_int;
    check(info(buf.as_mut_ptr() as *mut c_char, &mut len), name)?;
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    Ok(String::from_utf8_lossy(&buf[..end]).into_owned())
}

/// Refuses to measure where the user changed a parameter of the
/// collective's algorithms other than the radix and the chunk (which each
/// forced call sets): rows and selection files assume MPICH's defaults
/// (`MpichAlgorithm::params`).
fn check_parameters(collective: Collective) -> Result<(), String> {
    for m in collective.describe().mpich.algorithms {
        for p in m.params.iter().filter(|p| !MpichAlgorithm::swept(p)) {
            let name = parameter_variable(collective, p);
            let value = match p.default.parse::<c_int>() {
                Ok(_) => match Cvar::open(&name) {
                    Ok(var) => var.read()?.to_string(),
                    // An MPICH without the parameter runs its own value.
                    Err(_) => continue,
                },
                Err(_) => read_string(&name),
            };
            if !value.is_empty() && value != p.default {
                return Err(format!(
                    "{name} is {value}: bench measures MPICH's {} {} with its default {} \
                     (what the selection file then names); unset it",
                    collective.name(),
                    m.algorithm,
                    p.default
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::value_names;

    #[test]
    fn values_are_read_from_the_description_in_order() {
        let text = "Variable to select bcast algorithm\n\
            auto - Internal algorithm selection (can be overridden with X)\n\
            binomial                                - Force Binomial Tree\n\
            nb                                      - Force nonblocking algorithm\n\
            pipelined_tree - Force tree-based pipelined algorithm";
        assert_eq!(
            value_names(text),
            ["auto", "binomial", "nb", "pipelined_tree"]
        );
    }
}
