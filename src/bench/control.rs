//! Forcing Open MPI's own algorithms of a collective from inside one job,
//! through the MPI tool interface: the `coll_tuned_<collective>_*` control
//! variables are writable at run time, and Open MPI's tuned component reads
//! them whenever a communicator is created. So writing them and then
//! duplicating MPI_COMM_WORLD yields a communicator whose MPI_Bcast (or
//! MPI_Reduce) runs exactly the
//! requested algorithm, segment size and fan-out: one `mpirun` measures all
//! of them, no relaunch per algorithm.
//!
//! That holds only where tuned serves MPI_Bcast. From Open MPI 5.0 coll/han
//! outranks it on communicators that span nodes, and a forced algorithm
//! then reaches only HAN's sub-communicators: a row labelled with it would
//! time HAN. So a forced algorithm is measured on a duplicate that asks for
//! tuned and leaves HAN out ([`TUNED_FIRST`]); `default` keeps the plain
//! duplicate, which selects its components as the job's communicator does.

use crate::data::{Algorithm, Candidate, Collective};
use crate::schedule::DEFAULT_FANOUT;
use mpi::ffi;
use mpi::raw::{AsRaw, FromRaw};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::ffi::CString;
use std::os::raw::{c_int, c_void};

/// Environment variable that must be set before MPI_Init: without dynamic
/// rules the tuned component ignores forced algorithms silently.
pub const DYNAMIC_RULES_ENV: &str = "OMPI_MCA_coll_tuned_use_dynamic_rules";

/// Sets [`DYNAMIC_RULES_ENV`] for this process unless the user chose a
/// value; must run before `mpi::initialize`.
pub fn enable_dynamic_rules() {
    if std::env::var_os(DYNAMIC_RULES_ENV).is_none() {
        std::env::set_var(DYNAMIC_RULES_ENV, "1");
    }
}

/// The communicator info key Open MPI (4.1 and later) reads when it
/// selects the collective components of a new communicator: the listed
/// components come first, those after `^` are left out.
const COLL_PREFERENCE: &str = "ompi_comm_coll_preference";

/// Tuned first, HAN never: the forced algorithms are tuned's.
pub const TUNED_FIRST: &str = "tuned,^han";

/// Handles on the tuned component's control variables of one collective.
pub struct TunedControl {
    collective: Collective,
    algorithm: Cvar,
    /// Every collective's but the barrier's (it has no data to segment).
    segsize: Option<Cvar>,
    /// Where the collective has a chain (broadcast, reduce; the
    /// reduce-scatters have no such variable).
    chain_fanout: Option<Cvar>,
    /// Broadcast's only (reduce's knomial is Open MPI 5's).
    knomial_radix: Option<Cvar>,
    /// How many ids `coll_tuned_<collective>_algorithm` takes in this Open
    /// MPI (later releases add algorithms: allgather's sparbit is 5.0's).
    ids: c_int,
    /// Whether coll/han is loaded, not left out by the `coll` MCA variable
    /// and ranked above tuned: then it serves `default` on communicators
    /// that span nodes (within a node it steps aside).
    han_outranks_tuned: bool,
}

/// A handle on one integer or boolean control variable.
pub(super) struct Cvar {
    name: String,
    handle: ffi::MPI_T_cvar_handle,
}

impl TunedControl {
    /// Opens the tool interface and the control variables; fails with an
    /// explanation where the MPI library is not Open MPI with coll/tuned and
    /// dynamic rules.
    pub fn open(collective: Collective) -> Result<TunedControl, String> {
        init_tool_interface()?;
        if let Some((variable, file)) = rules_in_effect() {
            return Err(format!(
                "a rules file is in effect ({variable}={file}): bench and tune time the \
                 library's own choice as `default` and the forced algorithms as named, and \
                 the file would change both; unset it to measure (check it with `verify`)"
            ));
        }
        Self::open_beside_rules(collective)
    }

    /// [`TunedControl::open`] where a rules file may be in effect: from Open
    /// MPI 5.0 a forced algorithm takes precedence over the file (in 4.1
    /// the file's rule does, where it names an algorithm).
    pub fn open_beside_rules(collective: Collective) -> Result<TunedControl, String> {
        init_tool_interface()?;
        let dynamic = Cvar::open(USE_DYNAMIC_RULES)?;
        if dynamic.read()? == 0 {
            return Err(format!(
                "Open MPI's tuned component ignores forced algorithms unless \
                 coll_tuned_use_dynamic_rules is true, and it can only be set at launch: \
                 unset {DYNAMIC_RULES_ENV} (bench sets it) or set it to 1"
            ));
        }
        let tuned_priority = Cvar::open("coll_tuned_priority")?.read()?;
        // No such variable: HAN is not part of this Open MPI.
        let han_outranks_tuned = match Cvar::open("coll_han_priority") {
            Ok(han) => {
                han.read()? > tuned_priority && !super::left_out("han", &read_string("coll"))
            }
            Err(_) => false,
        };
        let var = |suffix: &str| format!("coll_tuned_{}_algorithm{suffix}", collective.name());
        Ok(TunedControl {
            collective,
            algorithm: Cvar::open(&var(""))?,
            // Tuned has a segment size for every collective with a message.
            segsize: match collective.describe().semantics.sized {
                true => Some(Cvar::open(&var("_segmentsize"))?),
                false => None,
            },
            chain_fanout: match collective.knows(Algorithm::Chain) {
                true => Some(Cvar::open(&var("_chain_fanout"))?),
                false => None,
            },
            knomial_radix: match collective.describe().ompi.knomial_radix {
                true => Some(Cvar::open(&var("_knomial_radix"))?),
                false => None,
            },
            han_outranks_tuned,
            ids: Cvar::open(&var("_count"))?.read()?,
        })
    }

    /// Whether this Open MPI has `algorithm` for the collective (forcing an
    /// id it lacks fails).
    pub fn has(&self, algorithm: Algorithm) -> bool {
        self.collective
            .ompi_id(algorithm)
            .is_some_and(|id| c_int::from(id) < self.ids)
    }

    /// The component that serves `candidate`'s collective on a
    /// communicator over `nodes` nodes: HAN for `default` where it
    /// outranks tuned and the communicator spans nodes; tuned otherwise
    /// (forced algorithms and `tuned` run where HAN is left out).
    pub fn component(&self, candidate: &Candidate, nodes: u32) -> &'static str {
        let han_serves = self.collective.describe().ompi.han;
        if candidate.is_default() && self.han_outranks_tuned && han_serves && nodes > 1 {
            "han"
        } else {
            "tuned"
        }
    }

    /// A fresh communicator over `world` whose MPI_Bcast runs `candidate`
    /// (`default`: the library's own decision). Collective.
    pub fn communicator(
        &self,
        world: &SimpleCommunicator,
        candidate: &Candidate,
    ) -> Result<SimpleCommunicator, String> {
        let id = self
            .collective
            .ompi_id(candidate.algorithm)
            .ok_or_else(|| {
                format!(
                    "{} is not an Open MPI {} algorithm",
                    candidate.algorithm.name(),
                    self.collective.function()
                )
            })?;
        let segsize = candidate.segsize.unwrap_or(0);
        let segsize = c_int::try_from(segsize)
            .map_err(|_| format!("segment size {segsize} does not fit Open MPI's int"))?;
        let fanout = candidate.fanout.unwrap_or(DEFAULT_FANOUT) as c_int;
        self.algorithm.write(c_int::from(id))?;
        if let Some(variable) = &self.segsize {
            variable.write(segsize)?;
        }
        match (candidate.algorithm, &self.chain_fanout, &self.knomial_radix) {
            (Algorithm::Chain, Some(chains), _) => chains.write(fanout)?,
            (Algorithm::Knomial, _, Some(radix)) => radix.write(fanout)?,
            _ => {}
        }
        let comm = if candidate.is_default() {
            world.duplicate()
        } else {
            duplicate_with_preference(world, TUNED_FIRST)?
        };
        // The communicator has captured the values (the knomial radix is read
        // at call time, so it stays set until the next candidate).
        self.algorithm.write(0)?;
        Ok(comm)
    }
}

/// The variable that switches coll/tuned's rules (file and forced
/// algorithms) on: read by each new communicator.
const USE_DYNAMIC_RULES: &str = "coll_tuned_use_dynamic_rules";

/// `first_call` on a duplicate of `comm` on which coll/tuned runs its fixed
/// decision, rules file or not: the duplicate is made, and `first_call`
/// makes its first collective call, while [`USE_DYNAMIC_RULES`] is 0 (the
/// sub-communicators coll/han makes at its first call read it too); then
/// the value is put back. Open MPI 5.0 lets the variable change at run
/// time; 4.1 does not (an error). Collective.
pub fn without_rules<T>(
    comm: &SimpleCommunicator,
    first_call: impl FnOnce(SimpleCommunicator) -> Result<T, String>,
) -> Result<T, String> {
    init_tool_interface()?;
    let dynamic = Cvar::open(USE_DYNAMIC_RULES)?;
    let before = dynamic.read()?;
    dynamic.write(0).map_err(|e| {
        format!(
            "{e}: this Open MPI cannot switch {USE_DYNAMIC_RULES} off inside a job (4.1 \
             cannot; 5.0 can)"
        )
    })?;
    let called = first_call(comm.duplicate());
    dynamic.write(before)?;
    called
}

/// Starts the MPI tool interface (each call is counted; it is never
/// finalized, it lives as long as MPI).
pub(super) fn init_tool_interface() -> Result<(), String> {
    let mut provided: c_int = 0;
    // SAFETY: plain C call with a valid out-pointer; MPI is initialized.
    let rc = unsafe { ffi::MPI_T_init_thread(0, &mut provided) };
    check(rc, "MPI_T_init_thread")
}

/// An integer or boolean control variable's value; `None` where this MPI
/// has no such variable.
pub fn int_variable(name: &str) -> Result<Option<i32>, String> {
    init_tool_interface()?;
    match Cvar::open(name) {
        Ok(var) => var.read().map(Some),
        Err(_) => Ok(None),
    }
}

/// A string control variable's value; `None` where this MPI has no such
/// variable (an unset one is empty).
pub fn string_variable(name: &str) -> Result<Option<String>, String> {
    init_tool_interface()?;
    Ok(has_variable(name).then(|| read_string(name)))
}

fn has_variable(name: &str) -> bool {
    let Ok(cname) = CString::new(name) else {
        return false;
    };
    let mut index: c_int = -1;
    // SAFETY: valid NUL-terminated name and out-pointer.
    unsafe { ffi::MPI_T_cvar_get_index(cname.as_ptr(), &mut index) == 0 }
}

/// A duplicate of `world` created with [`COLL_PREFERENCE`] = `preference`.
/// Collective. (rsmpi has no `MPI_Comm_dup_with_info`.)
fn duplicate_with_preference(
    world: &SimpleCommunicator,
    preference: &str,
) -> Result<SimpleCommunicator, String> {
    let key = CString::new(COLL_PREFERENCE).map_err(|e| e.to_string())?;
    let value = CString::new(preference).map_err(|e| e.to_string())?;
    let mut info = std::mem::MaybeUninit::<ffi::MPI_Info>::uninit();
    // SAFETY: out-pointer to an info handle, initialized by MPI_Info_create
    // before any use.
    let rc = unsafe { ffi::MPI_Info_create(info.as_mut_ptr()) };
    check(rc, "MPI_Info_create")?;
    // SAFETY: MPI_Info_create succeeded.
    let mut info = unsafe { info.assume_init() };
    // SAFETY: live info handle, NUL-terminated key and value.
    let rc = unsafe { ffi::MPI_Info_set(info, key.as_ptr(), value.as_ptr()) };
    let mut raw = std::mem::MaybeUninit::<ffi::MPI_Comm>::uninit();
    let dup = if rc == 0 {
        // SAFETY: `world` is a live intra-communicator, `info` a live info,
        // the out-pointer valid.
        unsafe { ffi::MPI_Comm_dup_with_info(world.as_raw(), info, raw.as_mut_ptr()) }
    } else {
        rc
    };
    // SAFETY: the info handle is live and freed once.
    unsafe { ffi::MPI_Info_free(&mut info) };
    check(rc, "MPI_Info_set")?;
    check(dup, "MPI_Comm_dup_with_info")?;
    // SAFETY: MPI_Comm_dup_with_info succeeded, so `raw` is a new live
    // intra-communicator owned only by the returned value.
    Ok(unsafe { SimpleCommunicator::from_raw(raw.assume_init()) })
}

impl Cvar {
    pub(super) fn open(name: &str) -> Result<Cvar, String> {
        let cname = CString::new(name).map_err(|e| e.to_string())?;
        let mut index: c_int = -1;
        // SAFETY: valid NUL-terminated name and out-pointer.
        let rc = unsafe { ffi::MPI_T_cvar_get_index(cname.as_ptr(), &mut index) };
        if rc != 0 {
            return Err(format!(
                "the MPI library has no control variable {name}: forcing Open MPI's \
                 algorithms (--impl ompi) needs Open MPI with its tuned collective \
                 component, MPICH's (--impl mpich) MPICH 4 or later; use --impl own for \
                 our schedules (the library's own choice, `--algorithms default`, needs no \
                 forcing)"
            ));
        }
        let mut handle: ffi::MPI_T_cvar_handle = std::ptr::null_mut();
        let mut count: c_int = 0;
        // SAFETY: the variable is not bound to an MPI object, so no object
        // handle is needed; out-pointers are valid.
        let rc = unsafe {
            ffi::MPI_T_cvar_handle_alloc(index, std::ptr::null_mut(), &mut handle, &mut count)
        };
        check(rc, name)?;
        let name = name.to_string();
        if count != 1 {
            return Err(format!(
                "control variable {name} has {count} values, expected 1"
            ));
        }
        Ok(Cvar { name, handle })
    }

    pub(super) fn read(&self) -> Result<c_int, String> {
        // Booleans and ints are both read as one C int; spare room for safety.
        let mut value: [c_int; 2] = [0; 2];
        // SAFETY: live handle, buffer larger than one value.
        let rc = unsafe { ffi::MPI_T_cvar_read(self.handle, value.as_mut_ptr() as *mut c_void) };
        check(rc, &self.name)?;
        Ok(value[0])
    }

    pub(super) fn write(&self, value: c_int) -> Result<(), String> {
        // SAFETY: live handle of a single-int variable.
        let rc =
            unsafe { ffi::MPI_T_cvar_write(self.handle, &value as *const c_int as *const c_void) };
        check(rc, &self.name)?;
        let back = self.read()?;
        if back != value {
            return Err(format!(
                "wrote {value} to {} but it reads back {back}",
                self.name
            ));
        }
        Ok(())
    }
}

impl Drop for Cvar {
    fn drop(&mut self) {
        // SAFETY: the handle came from MPI_T_cvar_handle_alloc and is freed once.
        unsafe {
            ffi::MPI_T_cvar_handle_free(&mut self.handle);
        }
    }
}

/// The first rules file the library reads, as (variable, file): coll/tuned's
/// (with its rules switched on) or coll/han's (likewise); `None` too where
/// the tool interface cannot be opened.
pub(crate) fn rules_in_effect() -> Option<(&'static str, String)> {
    init_tool_interface().ok()?;
    let on = |name: &str| {
        Cvar::open(name)
            .and_then(|v| v.read())
            .is_ok_and(|v| v != 0)
    };
    [
        (USE_DYNAMIC_RULES, "coll_tuned_dynamic_rules_filename"),
        (
            "coll_han_use_dynamic_file_rules",
            "coll_han_dynamic_rules_filename",
        ),
    ]
    .into_iter()
    .find_map(|(switch, file)| {
        let name = read_string(file);
        (on(switch) && !name.trim().is_empty()).then_some((file, name))
    })
}

/// A string control variable's value; empty where it cannot be read.
pub(super) fn read_string(name: &str) -> String {
    let Ok(cname) = CString::new(name) else {
        return String::new();
    };
    let mut index: c_int = -1;
    // SAFETY: valid NUL-terminated name and out-pointer.
    if unsafe { ffi::MPI_T_cvar_get_index(cname.as_ptr(), &mut index) } != 0 {
        return String::new();
    }
    let mut handle: ffi::MPI_T_cvar_handle = std::ptr::null_mut();
    let mut count: c_int = 0;
    // SAFETY: not bound to an MPI object; valid out-pointers.
    let rc = unsafe {
        ffi::MPI_T_cvar_handle_alloc(index, std::ptr::null_mut(), &mut handle, &mut count)
    };
    if rc != 0 {
        return String::new();
    }
    // A string variable's count is its buffer size in chars.
    let mut buf = vec![0u8; count.max(0) as usize + 1];
    // SAFETY: live handle, buffer of `count` + 1 bytes.
    let rc = unsafe { ffi::MPI_T_cvar_read(handle, buf.as_mut_ptr() as *mut c_void) };
    // SAFETY: the handle came from MPI_T_cvar_handle_alloc and is freed once.
    unsafe { ffi::MPI_T_cvar_handle_free(&mut handle) };
    if rc != 0 {
        return String::new();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

pub(super) fn check(rc: c_int, what: &str) -> Result<(), String> {
    if rc == 0 {
        Ok(())
    } else {
        Err(format!(
            "MPI tool interface call failed on {what} (error {rc})"
        ))
    }
}
