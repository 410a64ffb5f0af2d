from pkg.a import fa

def fb():
    return 1

def loop():
    return fa()


class Box:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return self.v == other.v
