// Links the explorers of one page (the compare page holds one a job):
// explorers that join one link hear each other's selections, hovers and
// colour choices, by row number. Jobs on the same data set (and test set)
// share a link; jobs on different data each have their own.

// createLink makes a link. join(member) adds an explorer, whose member
// has select(numbers, from), hover(number) and colour(key), and returns
// a function that takes it out; send(from, type, ...args) tells every
// other member.
export function createLink() {
  const members = new Set();
  return {
    join(member) {
      members.add(member);
      return () => members.delete(member);
    },
    send(from, type, ...args) {
      for (const m of members) {
        if (m !== from && m[type]) { m[type](...args); }
      }
    },
    get size() { return members.size; },
  };
}
