const parse = (v) => String(v).replace(/^v/, "").split(/[.-]/).map((x) => parseInt(x, 10) || 0);
const cmp = (a, b) => { const x = parse(a), y = parse(b); for (let i = 0; i < 3; i++) { if ((x[i]||0) !== (y[i]||0)) return (x[i]||0) - (y[i]||0); } return 0; };
module.exports = {gt: (a,b)=>cmp(a,b)>0, gte:(a,b)=>cmp(a,b)>=0, lt:(a,b)=>cmp(a,b)<0, lte:(a,b)=>cmp(a,b)<=0, eq:(a,b)=>cmp(a,b)===0, valid:(v)=>v, coerce:(v)=>v, satisfies:()=>true, compare:cmp};
module.exports.default = module.exports;
