import pkg.impl
import requests as rq
from pkg.base import helper as h

if __name__ == "__main__":
    pkg.impl.run()
    h()
    rq.get("http://example.com")
