export function listUsers(req: any, res: any) {
  res.send([]);
}

export function getUser(req: any, res: any) {
  res.send({});
}
