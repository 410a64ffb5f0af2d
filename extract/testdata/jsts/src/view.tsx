import A, { foo } from "./a";

export const View = () => {
  const a = new A();
  a.run();
  return <div>{foo(3)}</div>;
};
