const { foo } = require("./a");
const lodash = require("lodash");

class B {
  base() {
    return foo(2);
  }
}

const arrow = () => lodash.map([], (x) => x);

module.exports = { B, arrow };
