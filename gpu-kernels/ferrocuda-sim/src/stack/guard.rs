//! The `SIGSEGV` handler that ends a simulated thread which overflows its stack (Linux on x86-64
//! and AArch64; elsewhere an overflow stays the process's segfault).
use super::Exit;
use corosensei::Coroutine;
use corosensei::stack::{DefaultStack, Stack};
use corosensei::trap::CoroutineTrapHandler;

/// What the handler needs to know of a coroutine while this host thread runs it.
#[derive(Clone, Copy)]
pub(crate) struct Running {
    trap: CoroutineTrapHandler<Exit>,
    /// The guard page below the stack: an access there is an overflow.
    guard: (usize, usize),
}

impl Running {
    /// The guard of `stack`, for the coroutine `coroutine` built on it. Installs the handler (once
    /// per process) and an alternate signal stack for this host thread (once per thread) here,
    /// where a coroutine is made, rather than at each of its many resumes.
    pub(crate) fn new<I, Y>(coroutine: &Coroutine<I, Y, Exit, DefaultStack>, stack_limit: usize) -> Running {
        static PAGE_BYTES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        // SAFETY: sysconf has no preconditions.
        let page =
            *PAGE_BYTES.get_or_init(|| usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096));
        #[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
        signal::prepare();
        Running {
            trap: coroutine.trap_handler(),
            guard: (stack_limit, stack_limit + page),
        }
    }

    /// The lowest address of `stack`, its guard page included.
    pub(crate) fn limit_of(stack: &DefaultStack) -> usize {
        stack.limit().get()
    }

    /// Runs `work`, a resume of the coroutine, with the handler watching its guard page.
    pub(crate) fn during<R>(&self, work: impl FnOnce() -> R) -> R {
        #[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            signal::watch(*self, work)
        }
        #[cfg(not(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64"))))]
        {
            work()
        }
    }
}

#[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
mod signal {
    use super::{Exit, Running};
    use core::ffi::{c_int, c_void};
    use std::cell::Cell;
    use std::sync::{Once, OnceLock};

    std::thread_local! {
        /// The coroutine this host thread is running, if any. A `const` thread-local of a `Copy`
        /// value is a plain TLS slot, which a signal handler may read and write.
        static RUNNING: Cell<Option<Running>> = const { Cell::new(None) };
        /// This host thread's alternate signal stack, when it had none (a thread not started by
        /// Rust's `std`): the handler cannot run on the stack that overflowed.
        static ALTERNATE: AlternateStack = AlternateStack::ensure();
    }

    /// The `SIGSEGV` action before the simulator's, to which every other fault goes: set once,
    /// before the handler that reads it is installed.
    static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();

    /// Installs the handler (once) and makes sure this host thread has an alternate signal stack.
    pub(super) fn prepare() {
        static INSTALL: Once = Once::new();
        INSTALL.call_once(install);
        ALTERNATE.with(|_| {});
    }

    pub(super) fn watch<R>(running: Running, work: impl FnOnce() -> R) -> R {
        /// Puts the previous value back, also when `work` unwinds.
        struct Restore(Option<Running>);
        impl Drop for Restore {
            fn drop(&mut self) {
                RUNNING.set(self.0);
            }
        }
        let _restore = Restore(RUNNING.replace(Some(running)));
        work()
    }

    fn install() {
        // SAFETY: a zeroed sigaction is a valid value to be overwritten; sigaction reads `action`
        // and writes the current action into `previous`, both valid for the call. The handler
        // only reads thread-locals and `PREVIOUS`, set before it is installed.
        unsafe {
            let mut previous: libc::sigaction = core::mem::zeroed();
            if libc::sigaction(libc::SIGSEGV, core::ptr::null(), &mut previous) != 0 {
                return;
            }
            let _ = PREVIOUS.set(previous);
            let mut action: libc::sigaction = core::mem::zeroed();
            action.sa_sigaction = on_fault as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGSEGV, &action, core::ptr::null_mut());
        }
    }

    extern "C" fn on_fault(signal: c_int, info: *mut libc::siginfo_t, context: *mut c_void) {
        // SAFETY: the kernel passes a valid siginfo_t for a SIGSEGV with SA_SIGINFO.
        let address = unsafe { (*info).si_addr() } as usize;
        if let Some(running) = RUNNING.get()
            && (running.guard.0..running.guard.1).contains(&address)
        {
            let context = context.cast::<libc::ucontext_t>();
            // SAFETY: the kernel passes the interrupted thread's valid ucontext_t.
            let stack_pointer = unsafe { registers::stack_pointer(&*context) };
            if running.trap.stack_ptr_in_bounds(stack_pointer) {
                RUNNING.set(None);
                // SAFETY: the interrupted stack pointer is inside the coroutine (checked above),
                // whose registers the returned values replace below. The coroutine's frames are
                // abandoned: the kernel's writes to memory outside it are all complete or not
                // made, values it held are leaked, and the launch reports a fault.
                let regs = unsafe { running.trap.setup_trap_handler(|| Exit::StackOverflow) };
                // SAFETY: as above, the valid context of the interrupted thread.
                unsafe { registers::redirect(&mut *context, &regs) };
                return;
            }
        }
        // SAFETY: the arguments are the kernel's, passed on unchanged.
        unsafe { forward(signal, info, context.cast()) }
    }

    /// Hands a fault that is no simulated thread's overflow to the action installed before, or
    /// restores the default action so the faulting instruction, run again, ends the process.
    unsafe fn forward(signal: c_int, info: *mut libc::siginfo_t, context: *mut c_void) {
        let handler = PREVIOUS
            .get()
            .map(|previous| (previous.sa_sigaction, previous.sa_flags));
        match handler {
            Some((address, flags)) if address != libc::SIG_DFL && address != libc::SIG_IGN => {
                if flags & libc::SA_SIGINFO != 0 {
                    // SAFETY: with SA_SIGINFO the previous action's address is a three-argument
                    // handler.
                    let handler: extern "C" fn(c_int, *mut libc::siginfo_t, *mut c_void) =
                        unsafe { core::mem::transmute(address) };
                    handler(signal, info, context);
                } else {
                    // SAFETY: without SA_SIGINFO it is a one-argument handler.
                    let handler: extern "C" fn(c_int) = unsafe { core::mem::transmute(address) };
                    handler(signal);
                }
            }
            _ => {
                // SAFETY: a zeroed sigaction with SIG_DFL is a valid action.
                unsafe {
                    let mut default: libc::sigaction = core::mem::zeroed();
                    default.sa_sigaction = libc::SIG_DFL;
                    libc::sigaction(signal, &default, core::ptr::null_mut());
                }
            }
        }
    }

    /// An alternate signal stack this module mapped for its host thread, unmapped at its exit.
    struct AlternateStack(Option<(*mut c_void, usize)>);

    impl AlternateStack {
        const BYTES: usize = 64 << 10;

        fn ensure() -> AlternateStack {
            // SAFETY: sigaltstack with a null new stack only reads the current one into `current`;
            // the mapping is private and anonymous, and is registered only once mapped.
            unsafe {
                let mut current: libc::stack_t = core::mem::zeroed();
                if libc::sigaltstack(core::ptr::null(), &mut current) != 0 || current.ss_flags & libc::SS_DISABLE == 0 {
                    return AlternateStack(None);
                }
                let base = libc::mmap(
                    core::ptr::null_mut(),
                    Self::BYTES,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                );
                if base == libc::MAP_FAILED {
                    return AlternateStack(None);
                }
                let stack = libc::stack_t {
                    ss_sp: base,
                    ss_flags: 0,
                    ss_size: Self::BYTES,
                };
                if libc::sigaltstack(&stack, core::ptr::null_mut()) != 0 {
                    libc::munmap(base, Self::BYTES);
                    return AlternateStack(None);
                }
                AlternateStack(Some((base, Self::BYTES)))
            }
        }
    }

    impl Drop for AlternateStack {
        fn drop(&mut self) {
            if let Some((base, bytes)) = self.0 {
                // SAFETY: the stack is this thread's, no handler runs on it now (the thread is
                // exiting normally); it is unregistered before it is unmapped.
                unsafe {
                    let disable = libc::stack_t {
                        ss_sp: core::ptr::null_mut(),
                        ss_flags: libc::SS_DISABLE,
                        ss_size: 0,
                    };
                    libc::sigaltstack(&disable, core::ptr::null_mut());
                    libc::munmap(base, bytes);
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    mod registers {
        use corosensei::trap::TrapHandlerRegs;

        pub(super) fn stack_pointer(context: &libc::ucontext_t) -> usize {
            context.uc_mcontext.gregs[libc::REG_RSP as usize] as usize
        }

        pub(super) fn redirect(context: &mut libc::ucontext_t, regs: &TrapHandlerRegs) {
            let gregs = &mut context.uc_mcontext.gregs;
            gregs[libc::REG_RIP as usize] = regs.rip as i64;
            gregs[libc::REG_RSP as usize] = regs.rsp as i64;
            gregs[libc::REG_RBP as usize] = regs.rbp as i64;
            gregs[libc::REG_RDI as usize] = regs.rdi as i64;
            gregs[libc::REG_RSI as usize] = regs.rsi as i64;
        }
    }

    #[cfg(target_arch = "aarch64")]
    mod registers {
        use corosensei::trap::TrapHandlerRegs;

        pub(super) fn stack_pointer(context: &libc::ucontext_t) -> usize {
            context.uc_mcontext.sp as usize
        }

        pub(super) fn redirect(context: &mut libc::ucontext_t, regs: &TrapHandlerRegs) {
            let machine = &mut context.uc_mcontext;
            machine.pc = regs.pc;
            machine.sp = regs.sp;
            machine.regs[0] = regs.x0;
            machine.regs[1] = regs.x1;
            machine.regs[29] = regs.x29;
            machine.regs[30] = regs.lr;
        }
    }
}
