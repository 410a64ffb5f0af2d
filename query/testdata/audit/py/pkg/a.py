from pkg import b

def fa():
    return b.fb()
