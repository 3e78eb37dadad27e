// Text-format parser: module structure, graph functions and expressions, and the public
// entry points (number literals, types and attributes are in text_parse_values.cc, the
// metadata section in text_parse_meta.cc, tensor-level primfns in text_parse_tir.cc).
#include "tessera/ir/parser.h"

#include <limits>

#include "tessera/ir/op.h"
#include "text_parser.h"

namespace tessera {

namespace text {

// ---- module structure ----------------------------------------------------------------

void Parser::ParseHeader(IRModule* mod) {
  ExpectPunct("#[");
  if (IsIdent("version")) {
    Next();
    ExpectPunct("=");
    ExpectKind(TokKind::kString, "a version string");
  } else if (IsIdent("attrs")) {
    Next();
    ExpectPunct("(");
    while (!IsPunct(")")) {
      if (!AtAttr()) Expected("a module attribute key=value");
      std::string key = ParseAttrKey();
      Next();  // '='
      *mod = mod->WithAttr(key, ParseAttrValue());
      if (!AcceptPunct(",")) break;
    }
    ExpectPunct(")");
  } else {
    Expected("'version' or 'attrs' after '#['");
  }
  ExpectPunct("]");
}

IRModule Parser::ParseModule() {
  LoadMetadata();
  IRModule attrs_holder;
  auto node = MakeNode<IRModuleNode>();
  auto check_new = [&](const Token& at, const std::string& name) {
    for (const auto& [n, g] : node->functions)
      if (n == name) FailAt(at, "function @" + name + " is defined twice");
  };
  while (Peek().kind != TokKind::kEnd) {
    const Token& tok = Peek();
    if (IsPunct("#[")) {
      ParseHeader(&attrs_holder);
    } else if (IsIdent("def") || IsIdent("primfn")) {
      bool prim = IsIdent("primfn");
      Next();
      const Token& name = ExpectKind(TokKind::kGlobal, "a function name like @main");
      check_new(name, name.value);
      BaseFunc f;
      if (prim)
        f = ParsePrimFuncRest(name);
      else
        f = ParseFunctionRest(name);
      node->functions.emplace_back(name.value, std::move(f));
    } else if (IsIdent("fn")) {
      Next();
      check_new(tok, "main");
      node->functions.emplace_back("main", ParseFunctionRest(tok));
    } else {
      Expected("'def', 'primfn' or 'fn'");
    }
  }
  node->attrs = attrs_holder.attrs();
  for (const auto& [name, tok] : global_refs_) {
    bool found = false;
    for (const auto& [n, g] : node->functions) found = found || n == name;
    if (!found) FailAt(tok, "undefined global function '@" + name + "'");
  }
  return IRModule(Ref<const IRModuleNode>(std::move(node)));
}

Expr Parser::ParseStandaloneExpr() {
  LoadMetadata();
  if (IsIdent("primfn")) {
    const Token& tok = Next();
    if (Peek().kind == TokKind::kGlobal) Next();
    Expr f = ParsePrimFuncRest(tok);
    if (Peek().kind != TokKind::kEnd) Expected("end of input");
    return f;
  }
  return ParseBlock(false);
}

// ---- graph functions -----------------------------------------------------------------

Function Parser::ParseFunctionRest(const Token& start) {
  DepthGuard guard(this);
  ExpectPunct("(");
  locals_.Push();
  std::vector<Var> params;
  Attrs attrs;
  while (!IsPunct(")")) {
    if (Peek().kind == TokKind::kLocal) {
      const Token& name = Next();
      Type type;
      if (AcceptPunct(":")) type = ParseType();
      Var v = MakeVar(name.value, type);
      params.push_back(v);
      locals_.Bind(name.value, v);
    } else if (AtAttr()) {
      std::string key = ParseAttrKey();
      Next();  // '='
      attrs.Set(key, ParseAttrValue());
    } else {
      Expected("a parameter like %x: Tensor[(1), float32] or an attribute key=value");
    }
    if (!AcceptPunct(",")) break;
  }
  ExpectPunct(")");
  Type ret;
  if (AcceptPunct("->")) ret = ParseType();
  ExpectPunct("{");
  Expr body = ParseBlock(true);
  locals_.Pop();
  return MakeFunction(std::move(params), std::move(body), std::move(ret), std::move(attrs));
}

Expr Parser::ParseBlock(bool braced) {
  DepthGuard guard(this);
  locals_.Push();
  std::vector<std::pair<Var, Expr>> lets;
  Expr tail;
  while (true) {
    if (IsIdent("let")) {
      Next();
      const Token& name = ExpectKind(TokKind::kLocal, "a variable like %x after 'let'");
      Type type;
      if (AcceptPunct(":")) type = ParseType();
      ExpectPunct("=");
      Expr value = ParseExpr();
      ExpectPunct(";");
      Var v = MakeVar(name.value, type);
      locals_.Bind(name.value, v);
      lets.emplace_back(std::move(v), std::move(value));
      continue;
    }
    if (Peek().kind == TokKind::kLocal && IsPunct("=", 1)) {
      std::string name = Next().value;
      Next();
      Expr value = ParseExpr();
      ExpectPunct(";");
      locals_.Bind(name, std::move(value));
      continue;
    }
    tail = ParseExpr();
    if (braced)
      ExpectPunct("}");
    else if (Peek().kind != TokKind::kEnd)
      Expected("end of input");
    break;
  }
  locals_.Pop();
  for (size_t i = lets.size(); i-- > 0;)
    tail = MakeLet(std::move(lets[i].first), std::move(lets[i].second), std::move(tail));
  return tail;
}

GlobalVar Parser::ReferGlobal(const Token& tok) {
  global_refs_.emplace_back(tok.value, tok);
  return MakeGlobalVar(tok.value);
}

Expr Parser::ParseExpr() {
  DepthGuard guard(this);
  Expr e = ParsePrimary();
  while (true) {
    if (IsPunct(".")) {
      Next();
      const Token& idx_tok = Peek();
      int64_t index = ParseSmallInt("a tuple index after '.'");
      if (index > std::numeric_limits<int32_t>::max())
        FailAt(idx_tok, "tuple index " + std::to_string(index) + " is too large");
      e = MakeTupleGetItem(e, static_cast<int>(index));
    } else if (IsPunct("(")) {
      e = ParseCallRest(Peek(), e, nullptr);
    } else {
      return e;
    }
  }
}

Expr Parser::ParsePrimary() {
  const Token& tok = Peek();
  switch (tok.kind) {
    case TokKind::kLocal: {
      const Expr* e = locals_.Find(tok.value);
      if (!e) FailAt(tok, "undefined variable '%" + tok.value + "'");
      Next();
      return *e;
    }
    case TokKind::kGlobal:
      Next();
      return ReferGlobal(tok);
    case TokKind::kNumber:
      return ParseLiteralConstant(false);
    case TokKind::kPunct:
      if (IsPunct("-") && (Peek(1).kind == TokKind::kNumber ||
                           (Peek(1).kind == TokKind::kIdent && IsNonFiniteName(Peek(1).text)))) {
        Next();
        return ParseLiteralConstant(true);
      }
      if (IsPunct("(")) {
        Next();
        if (AcceptPunct(")")) return MakeTuple({});
        Expr first = ParseExpr();
        if (AcceptPunct(")")) return first;
        if (!IsPunct(",")) Expected("',' or ')'");
        std::vector<Expr> fields{first};
        while (AcceptPunct(",") && !IsPunct(")")) fields.push_back(ParseExpr());
        ExpectPunct(")");
        return MakeTuple(std::move(fields));
      }
      if (IsPunct("{")) {
        Next();
        return ParseBlock(true);
      }
      break;
    case TokKind::kIdent: {
      if (tok.text == "fn") {
        Next();
        return ParseFunctionRest(tok);
      }
      if (tok.text == "True" || tok.text == "False") {
        Next();
        return MakeConstant(NDArray::Scalar(tok.text == "True" ? 1 : 0, DType::kBool));
      }
      if (tok.text == "meta" && IsPunct("[", 1)) return ParseMeta();
      if (IsNonFiniteName(tok.text) && !OpRegistry::Global().Find(tok.text))
        return ParseLiteralConstant(false);
      if (tok.text == "let")
        FailAt(tok, "'let' may only start a statement of a block; wrap it in { ... }");
      const OpDef* def = OpRegistry::Global().Find(tok.text);
      if (!def) FailAt(tok, "unknown op '" + std::string(tok.text) + "'", ErrorKind::kNotFound);
      Next();
      Op op = OpRegistry::Global().GetOp(def->name);
      if (IsPunct("(")) return ParseCallRest(tok, op, def);
      return op;
    }
    default:
      break;
  }
  Expected("an expression");
}

Expr Parser::ParseCallRest(const Token& at, Expr callee, const OpDef* def) {
  ExpectPunct("(");
  std::vector<Expr> args;
  Attrs attrs;
  std::vector<Type> type_args;
  bool call_tir = def && def->name == kCallTirOp;
  while (!IsPunct(")")) {
    if (AtAttr()) {
      const Token& key_tok = Peek();
      std::string key = ParseAttrKey();
      Next();  // '='
      if (key == "type_args") {
        ExpectPunct("[");
        while (!IsPunct("]")) {
          type_args.push_back(ParseType());
          if (!AcceptPunct(",")) break;
        }
        ExpectPunct("]");
      } else {
        if (attrs.Has(key)) FailAt(key_tok, "attribute '" + key + "' is given twice");
        if (def) {
          bool known = key == attr::kFrozenLayout;  // every op accepts it
          std::string valid;
          for (const auto& f : def->attrs) {
            known = known || f.name == key;
            valid += (valid.empty() ? "" : ", ") + f.name;
          }
          if (!known)
            FailAt(key_tok,
                   "op '" + def->name + "': unknown attribute '" + key + "'" +
                       (valid.empty() ? " (it takes no attributes)" : " (valid: " + valid + ")"),
                   ErrorKind::kValue);
        }
        attrs.Set(key, ParseAttrValue());
      }
    } else if (call_tir && args.size() == 2) {
      type_args.push_back(ParseType());
    } else {
      args.push_back(ParseExpr());
    }
    if (!AcceptPunct(",")) break;
  }
  ExpectPunct(")");
  if (def)
    return Located(at, [&] {
      return Expr(MakeOpCall(def->name, std::move(args), attrs, std::move(type_args)));
    });
  return MakeCall(std::move(callee), std::move(args), std::move(attrs), std::move(type_args));
}

}  // namespace text

IRModule ParseModule(std::string_view text, std::string_view source_name) {
  return text::Parser(text, source_name).ParseModule();
}

Expr ParseExpr(std::string_view text, std::string_view source_name) {
  return text::Parser(text, source_name).ParseStandaloneExpr();
}

}  // namespace tessera
