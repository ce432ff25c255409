// trainfit — Dear ImGui's draw lists on WebGL2 without GL state queries (see webgl_renderer.h for why).
// Follows imgui 1.86's imgui_impl_opengl3.cpp, GLSL 300 es path: same shaders, blend function, vertex layout,
// orthographic projection and scissor clipping. ImDrawIdx is 32-bit (app/include/trainfit/app/imconfig_trainfit.h)
// and WebGL has no base-vertex draws, so the renderer does not set ImGuiBackendFlags_RendererHasVtxOffset (as the
// backend does not for ES 3).
#include "webgl_renderer.h"

#include <GLES3/gl3.h>

#include <cstdint>

#include "imgui.h"

namespace trainfit::web {
namespace {

// imgui_impl_opengl3.cpp: vertex_shader_glsl_300_es / fragment_shader_glsl_300_es, with the attribute
// locations fixed in the shader (no glGetAttribLocation).
const char* const kVertexShader =
    "#version 300 es\n"
    "precision highp float;\n"
    "layout (location = 0) in vec2 Position;\n"
    "layout (location = 1) in vec2 UV;\n"
    "layout (location = 2) in vec4 Color;\n"
    "uniform mat4 ProjMtx;\n"
    "out vec2 Frag_UV;\n"
    "out vec4 Frag_Color;\n"
    "void main() {\n"
    "  Frag_UV = UV;\n"
    "  Frag_Color = Color;\n"
    "  gl_Position = ProjMtx * vec4(Position.xy, 0, 1);\n"
    "}\n";
const char* const kFragmentShader =
    "#version 300 es\n"
    "precision mediump float;\n"
    "uniform sampler2D Texture;\n"
    "in vec2 Frag_UV;\n"
    "in vec4 Frag_Color;\n"
    "layout (location = 0) out vec4 Out_Color;\n"
    "void main() { Out_Color = Frag_Color * texture(Texture, Frag_UV.st); }\n";

GLuint g_program = 0, g_vao = 0, g_vbo = 0, g_ebo = 0, g_font_texture = 0;
GLint g_loc_texture = -1, g_loc_proj = -1;

GLuint compile(GLenum kind, const char* source) {
  const GLuint s = glCreateShader(kind);
  glShaderSource(s, 1, &source, nullptr);
  glCompileShader(s);
  return s;  // its status is read once, through the program's link status (one round trip, not one per shader)
}

void setup_state(const ImDrawData* d, int fb_w, int fb_h) {
  glEnable(GL_BLEND);
  glBlendEquation(GL_FUNC_ADD);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  glDisable(GL_CULL_FACE);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_STENCIL_TEST);
  glEnable(GL_SCISSOR_TEST);
  glViewport(0, 0, fb_w, fb_h);
  // Orthographic projection of the display rectangle (imgui_impl_opengl3.cpp, SetupRenderState).
  const float L = d->DisplayPos.x, R = d->DisplayPos.x + d->DisplaySize.x;
  const float T = d->DisplayPos.y, B = d->DisplayPos.y + d->DisplaySize.y;
  const float ortho[4][4] = {
      {2.0f / (R - L), 0.0f, 0.0f, 0.0f},
      {0.0f, 2.0f / (T - B), 0.0f, 0.0f},
      {0.0f, 0.0f, -1.0f, 0.0f},
      {(R + L) / (L - R), (T + B) / (B - T), 0.0f, 1.0f},
  };
  glUseProgram(g_program);
  glUniform1i(g_loc_texture, 0);
  glUniformMatrix4fv(g_loc_proj, 1, GL_FALSE, &ortho[0][0]);
  glActiveTexture(GL_TEXTURE0);
  glBindVertexArray(g_vao);
  glBindBuffer(GL_ARRAY_BUFFER, g_vbo);
}

}  // namespace

bool renderer_init(const char** why) {
  const GLuint vs = compile(GL_VERTEX_SHADER, kVertexShader);
  const GLuint fs = compile(GL_FRAGMENT_SHADER, kFragmentShader);
  g_program = glCreateProgram();
  glAttachShader(g_program, vs);
  glAttachShader(g_program, fs);
  glLinkProgram(g_program);
  GLint linked = GL_FALSE;
  glGetProgramiv(g_program, GL_LINK_STATUS, &linked);
  glDetachShader(g_program, vs);
  glDetachShader(g_program, fs);
  glDeleteShader(vs);
  glDeleteShader(fs);
  if (linked != GL_TRUE) {
    glDeleteProgram(g_program);
    g_program = 0;  // renderer_draw draws nothing
    if (why) *why = "the ImGui shader program did not compile or link";
    return false;
  }
  g_loc_texture = glGetUniformLocation(g_program, "Texture");
  g_loc_proj = glGetUniformLocation(g_program, "ProjMtx");

  // One vertex array object holds the vertex layout and the index buffer binding, for every frame.
  glGenVertexArrays(1, &g_vao);
  glGenBuffers(1, &g_vbo);
  glGenBuffers(1, &g_ebo);
  glBindVertexArray(g_vao);
  glBindBuffer(GL_ARRAY_BUFFER, g_vbo);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, g_ebo);
  glEnableVertexAttribArray(0);
  glEnableVertexAttribArray(1);
  glEnableVertexAttribArray(2);
  const GLsizei stride = static_cast<GLsizei>(sizeof(ImDrawVert));
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<void*>(IM_OFFSETOF(ImDrawVert, pos)));
  glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<void*>(IM_OFFSETOF(ImDrawVert, uv)));
  glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride, reinterpret_cast<void*>(IM_OFFSETOF(ImDrawVert, col)));
  glBindVertexArray(0);

  ImGuiIO& io = ImGui::GetIO();
  io.BackendRendererName = "trainfit_webgl2";
  renderer_upload_fonts();
  return true;
}

void renderer_upload_fonts() {
  ImGuiIO& io = ImGui::GetIO();
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  if (g_font_texture) glDeleteTextures(1, &g_font_texture);
  glGenTextures(1, &g_font_texture);
  glBindTexture(GL_TEXTURE_2D, g_font_texture);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
  io.Fonts->SetTexID(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(g_font_texture)));
}

void renderer_draw(const ImDrawData* d) {
  const int fb_w = static_cast<int>(d->DisplaySize.x * d->FramebufferScale.x);
  const int fb_h = static_cast<int>(d->DisplaySize.y * d->FramebufferScale.y);
  if (fb_w <= 0 || fb_h <= 0 || !g_program) return;
  setup_state(d, fb_w, fb_h);
  const ImVec2 off = d->DisplayPos, scale = d->FramebufferScale;
  GLuint bound_texture = 0;
  for (int n = 0; n < d->CmdListsCount; ++n) {
    const ImDrawList* list = d->CmdLists[n];
    // Re-specified every frame (orphaning the previous storage), as the backend does.
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(list->VtxBuffer.Size) * sizeof(ImDrawVert),
                 list->VtxBuffer.Data, GL_STREAM_DRAW);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, static_cast<GLsizeiptr>(list->IdxBuffer.Size) * sizeof(ImDrawIdx),
                 list->IdxBuffer.Data, GL_STREAM_DRAW);
    for (int i = 0; i < list->CmdBuffer.Size; ++i) {
      const ImDrawCmd* cmd = &list->CmdBuffer[i];
      if (cmd->UserCallback) {
        if (cmd->UserCallback == ImDrawCallback_ResetRenderState) {
          setup_state(d, fb_w, fb_h);
          bound_texture = 0;
        } else {
          cmd->UserCallback(list, cmd);
        }
        continue;
      }
      // Clip rectangle in framebuffer pixels; GL's scissor origin is the bottom left.
      const float x0 = (cmd->ClipRect.x - off.x) * scale.x, y0 = (cmd->ClipRect.y - off.y) * scale.y;
      const float x1 = (cmd->ClipRect.z - off.x) * scale.x, y1 = (cmd->ClipRect.w - off.y) * scale.y;
      if (x1 <= x0 || y1 <= y0) continue;
      glScissor(static_cast<int>(x0), static_cast<int>(fb_h - y1), static_cast<int>(x1 - x0),
                static_cast<int>(y1 - y0));
      const GLuint tex = static_cast<GLuint>(reinterpret_cast<intptr_t>(cmd->GetTexID()));
      if (tex != bound_texture) {
        glBindTexture(GL_TEXTURE_2D, tex);
        bound_texture = tex;
      }
      glDrawElements(GL_TRIANGLES, static_cast<GLsizei>(cmd->ElemCount),
                     sizeof(ImDrawIdx) == 2 ? GL_UNSIGNED_SHORT : GL_UNSIGNED_INT,
                     reinterpret_cast<void*>(static_cast<intptr_t>(cmd->IdxOffset * sizeof(ImDrawIdx))));
    }
  }
  glDisable(GL_SCISSOR_TEST);
  glBindVertexArray(0);
}

}  // namespace trainfit::web
