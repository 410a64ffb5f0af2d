from pkg.a import fa

def test_fa():
    assert fa() == 1

class TestThing:
    def test_x(self):
        pass
