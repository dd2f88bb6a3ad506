// The tiny tokenizer's training text: plain English about inference engines, a little code in three
// languages, numbers and a few accented and CJK words, so that the learned merges cover what tests type.
// Changing this text changes every tiny checkpoint's vocabulary.
#include "text/tiny_tokenizer_corpus.h"

namespace plumb::text {

std::string_view tiny_tokenizer_corpus() {
  return R"CORPUS(The quick brown fox jumps over the lazy dog. A language model reads a prompt, one token at a time,
and writes the next token. Each token is a small piece of text: a word, part of a word, a space, a digit or a
sign. The tokenizer turns text into tokens and the detokenizer turns tokens back into text. When the model
answers a question, it first thinks about the question, then it writes the answer for the user.

An inference engine keeps the weights of the model in memory and runs the forward pass for many requests at
once. It should return the same tokens for a request whether that request runs alone or together with other
requests, with or without a prompt cache, in one chunk or in many chunks. This property is called batch
invariance, and it makes the engine much easier to test: the output of a request can be compared with the
output of the same request run alone, and any difference is a bug.

The server speaks the OpenAI chat completions protocol. A client sends a list of messages, each with a role
and some content; the roles are system, user, assistant and tool. The server renders the messages into a
prompt, encodes the prompt into tokens, generates new tokens until the model writes the end of the sentence,
and then parses the completion into reasoning, content and tool calls. Streaming responses are sent as
server-sent events, one small delta at a time, and every delta must be complete UTF-8 text.

Hello, world! How are you today? I am fine, thank you. What time is it? It is 10:45 in the morning, on
Tuesday, 2025-06-17. The temperature is 22 degrees and the humidity is 45 percent. Please call me at
555-0123 or write to me at hello@example.com. The price is $19.99, or 17.50 euros. Numbers such as 0, 1, 2,
3, 42, 100, 256, 1024, 4096 and 65536 appear often in programs.

Some words come from other languages: café, naïve, résumé, über, façade, jalapeño, smörgåsbord, crème
brûlée. Some text is Chinese or Japanese: 你好，世界。深度求索。こんにちは、世界。

def fibonacci(n):
    """Return the n-th Fibonacci number."""
    if n < 2:
        return n
    a, b = 0, 1
    for _ in range(n - 1):
        a, b = b, a + b
    return b

for i in range(10):
    print(f"fib({i}) = {fibonacci(i)}")

#include <cstdio>
#include <string>
#include <vector>

// Counts the words of a line, where words are separated by spaces.
static int count_words(const std::string& line) {
  int count = 0;
  bool in_word = false;
  for (char c : line) {
    if (c == ' ') {
      in_word = false;
    } else if (!in_word) {
      in_word = true;
      ++count;
    }
  }
  return count;
}

int main(int argc, char** argv) {
  std::vector<std::string> lines = {"one two three", "four five", ""};
  for (const auto& line : lines) {
    std::printf("%d\n", count_words(line));
  }
  return 0;
}

function greet(name) {
  const message = `Hello, ${name}!`;
  console.log(message);
  return message.length;
}

const values = [1, 2, 3, 4, 5].map((x) => x * x).filter((x) => x % 2 === 1);
if (values.length > 0 && values[0] !== undefined) {
  greet("world");
}

SELECT name, count(*) AS total FROM users WHERE age >= 18 GROUP BY name ORDER BY total DESC LIMIT 10;

{"model": "tiny", "messages": [{"role": "user", "content": "What is the weather in Paris?"}], "stream": true}

The best way to learn a new skill is to practice it every day. Start with small problems, read the code of
others, write tests before you write the code, and keep each function short. When something breaks, find the
smallest input that shows the problem, fix the cause rather than the symptom, and add a test so that it does
not come back. Good names matter more than clever tricks; a reader should understand a function from its
name, its arguments and one sentence of comment.

Mathematics is the language of science. The area of a circle is pi times the square of its radius, and the
sum of the angles of a triangle is 180 degrees. If x = 3 and y = 4, then sqrt(x * x + y * y) = 5. Matrices
multiply rows by columns; the product of a 4096 by 4096 matrix with a vector of 4096 numbers takes about
sixteen million multiplications and as many additions.

Once upon a time there was a little robot who wanted to write poems. Every morning it read the newspaper,
counted the words, and tried to put them together in a new order. Most of its poems made no sense at all,
but one day it wrote a line that made the old gardener smile: "the rain remembers every leaf it touches."
Rivers begin as small streams high in the mountains. They collect water from rain and melting snow, grow wider
as they flow down the valleys, and finally reach the sea. Along the way they carry sand and stones, shape the
land, and give water to farms, forests and cities. People have always built their towns near rivers, because
a river brings food, trade and travel.

class Cache:
    def __init__(self, capacity=1024):
        self.capacity = capacity
        self.entries = {}

    def get(self, key, default=None):
        return self.entries.get(key, default)

    def put(self, key, value):
        if len(self.entries) >= self.capacity:
            self.entries.pop(next(iter(self.entries)))
        self.entries[key] = value

struct Point {
  double x = 0.0;
  double y = 0.0;
};

double distance(const Point& a, const Point& b) {
  const double dx = a.x - b.x, dy = a.y - b.y;
  return std::sqrt(dx * dx + dy * dy);
}

$ git commit -m "Fix the off-by-one error in the parser" && git push origin main
$ curl -s http://localhost:8080/v1/models | jq '.data[0].id'
)CORPUS";
}

}  // namespace plumb::text
