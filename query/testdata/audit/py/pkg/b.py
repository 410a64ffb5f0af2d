from pkg.a import fa

def fb():
    return 1

def loop():
    return fa()
