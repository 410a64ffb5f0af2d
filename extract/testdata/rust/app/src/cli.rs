use shapes_core::Point;

pub struct Runner {
    pub shape: Point,
}

impl Runner {
    fn go(&self) {
        self.shape.norm();
        Self::helper();
        Runner::helper();
    }

    fn helper() {}

    fn build() -> Runner {
        Runner { shape: Point::new() }
    }
}

pub fn run() {
    let r = Runner::build();
    r.go();
    let f = |x: &Runner| x.go();
    f(&r);
    Runner::default();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs() {
        run();
    }
}
