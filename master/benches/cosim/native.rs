//! The double oscillator integrated natively in one loop: the same symplectic Euler steps as the
//! mass FMUs and the same spring force as the spring FMU, coupled as the master couples them
//! under ZOH, so that the loop and the co-simulation compute the same numbers.

/// A mass on a spring-damper to ground (the mass FMU's parameters).
#[derive(Clone, Copy)]
pub struct Mass {
    /// Mass (kg).
    pub m: f64,
    /// Stiffness to ground (N/m).
    pub k: f64,
    /// Damping to ground (N.s/m).
    pub c: f64,
}

/// The double oscillator of `master/systems/double-oscillator-*.toml`.
#[derive(Clone, Copy)]
pub struct DoubleOscillator {
    /// Left mass.
    pub mass1: Mass,
    /// Right mass.
    pub mass2: Mass,
    /// Coupling spring stiffness (N/m).
    pub k: f64,
    /// Coupling damping (N.s/m).
    pub c: f64,
    /// Coupling spring rest length (m).
    pub l0: f64,
}

/// Positions and velocities `[x1, v1, x2, v2]`.
pub type State = [f64; 4];

impl DoubleOscillator {
    /// LIM case 0, as in the system files.
    pub const UNDAMPED: Self = DoubleOscillator {
        mass1: Mass {
            m: 1.0,
            k: 10.0,
            c: 0.0,
        },
        mass2: Mass {
            m: 1.0,
            k: 1000.0,
            c: 0.0,
        },
        k: 100.0,
        c: 0.0,
        l0: 0.0,
    };

    /// The system files' initial state.
    pub const INITIAL_STATE: State = [0.0, 100.0, 0.0, -100.0];

    /// Force on mass 1 (the spring FMU's `f_a`; mass 2 gets its negative).
    fn spring_force(&self, [x1, v1, x2, v2]: State) -> f64 {
        -(self.k * (x1 - x2 - self.l0) + self.c * (v1 - v2))
    }

    /// `steps` macro steps of `h` in Jacobi order: the masses step on the force the spring
    /// communicated at the start of the step, which the spring computed from the positions
    /// held over the previous step.
    pub fn jacobi(&self, mut s: State, h: f64, steps: usize) -> State {
        let mut force = self.spring_force(s);
        for _ in 0..steps {
            let next_force = self.spring_force(s);
            [s[0], s[1]] = self.mass1.step([s[0], s[1]], force, h);
            [s[2], s[3]] = self.mass2.step([s[2], s[3]], -force, h);
            force = next_force;
        }
        s
    }

    /// `steps` macro steps of `h` in Gauss-Seidel order mass1, spring, mass2: the spring force
    /// is computed between the two masses from mass 1's new state.
    pub fn gauss_seidel(&self, mut s: State, h: f64, steps: usize) -> State {
        let mut force = self.spring_force(s);
        for _ in 0..steps {
            [s[0], s[1]] = self.mass1.step([s[0], s[1]], force, h);
            force = self.spring_force(s);
            [s[2], s[3]] = self.mass2.step([s[2], s[3]], -force, h);
        }
        s
    }
}

impl Mass {
    /// One symplectic Euler step under the force `f`: velocity first, then position with the
    /// new velocity (the order of operations of the FMU, so that results agree to the bit).
    fn step(&self, [x, v]: [f64; 2], f: f64, h: f64) -> [f64; 2] {
        let v_next = v + h * ((-self.k * x - self.c * v + f) / self.m);
        [x + h * v_next, v_next]
    }
}
